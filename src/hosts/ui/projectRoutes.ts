/**
 * The memory browser's Project view for one project directory: its scope (banks, tags, mode,
 * problems), the config it runs on (without the key), the retain queue (pending jobs, backoff,
 * dead letters with requeue and drop, each confirmed), and the banks' mental models and
 * knowledge pages as the server has them.
 */
import * as t from 'io-ts';
import { redact } from '../../config/redact.js';
import { HttpError } from '../../server/http/errors.js';
import { loadCliContext } from '../cli/loadContext.js';
import { bankPath, type HindsightLine } from './hindsight.js';
import { decodeBody, type ApiRoute } from './memoryRoutes.js';
import { changeDeadLetter, readQueueView } from './queueView.js';

const DeadLetterBody = t.type({ id: t.string, confirm: t.string });

const required = (query: URLSearchParams, name: string): string => {
  const value = query.get(name);
  if (value === null || value.trim() === '') throw new HttpError(400, `the query parameter ${name} is required`);
  return value;
};

export const projectRoutes = (line: HindsightLine, cwd: string, env: NodeJS.ProcessEnv): Readonly<Record<string, ApiRoute>> => {
  const deadLetter =
    (verb: 'requeue' | 'drop'): ApiRoute =>
    async ({ body }) => {
      const req = decodeBody(DeadLetterBody, `dead letter ${verb}`, body);
      if (req.confirm !== req.id) throw new HttpError(409, `not confirmed: confirm must repeat the dead letter's job id (${req.id}) after the user agreed`);
      const { loaded } = await loadCliContext(cwd, env);
      try {
        return { status: 200, body: await changeDeadLetter(loaded, env, verb, req.id) };
      } catch (error) {
        throw new HttpError(409, redact(error instanceof Error ? error.message : String(error)));
      }
    };

  return {
    'GET /ui/api/project': async () => {
      const { loaded, scope } = await loadCliContext(cwd, env);
      const { config } = loaded;
      const banks = [
        { role: 'project', bankId: scope.projectBank.bankId, active: scope.projectBank.active, tags: scope.projectScopeTags },
        ...(scope.userBank.bankId === null ? [] : [{ role: 'user', bankId: scope.userBank.bankId, active: scope.userBank.active, tags: scope.userScopeTags }]),
      ];
      let queue: unknown;
      try {
        queue = await readQueueView(loaded);
      } catch (error) {
        queue = { path: config.queuePath, problem: redact(error instanceof Error ? error.message : String(error)) };
      }
      return {
        status: 200,
        body: {
          cwd,
          stateDir: loaded.stateDir,
          server: line.baseUrl,
          enabled: config.enabled,
          scope: {
            project: scope.identity,
            mode: scope.mode,
            profile: scope.profile,
            retainTags: scope.projectRetainTags,
            automatic: scope.automatic,
            problems: scope.problems,
          },
          banks,
          queue,
          configErrors: loaded.errors.map((e) => redact(JSON.stringify(e))),
        },
      };
    },
    'GET /ui/api/mental-models': async ({ query }) => {
      const answer = await line.call('GET', bankPath(required(query, 'bank'), '/mental-models'));
      return { status: answer.status, body: answer.body };
    },
    'GET /ui/api/knowledge': async ({ query }) => {
      const answer = await line.call('GET', bankPath(required(query, 'bank'), '/knowledge-base/tree'));
      return { status: answer.status, body: answer.body };
    },
    'GET /ui/api/knowledge/page': async ({ query }) => {
      const answer = await line.call('GET', bankPath(required(query, 'bank'), `/knowledge-base/pages/${encodeURIComponent(required(query, 'id'))}`));
      return { status: answer.status, body: answer.body };
    },
    'POST /ui/api/dead-letters/requeue': deadLetter('requeue'),
    'POST /ui/api/dead-letters/drop': deadLetter('drop'),
  };
};
