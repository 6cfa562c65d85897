/** Directives CRUD (`{b}/directives`): hard rules that reflect applies (reference 1.10, 2.5). */
import { randomUUID } from 'node:crypto';
import { notFound } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import {
  compareDirectives,
  CreateDirectiveBody,
  DIRECTIVE_KIND,
  DirectiveRecord,
  directiveListed,
  directiveResponse,
  UpdateDirectiveBody,
} from '../features/directives.js';
import type { DirectiveListMatch } from '../features/directives.js';
import { boolParam, choiceParam, intParam, listParam } from '../features/listQuery.js';
import { deleteRecord, putRecord, readRecord, readRecords } from '../features/records.js';
import type { ServerContext } from '../context.js';
import { ensureBankMutations } from './bankOps.js';
import type { RouteModule } from './module.js';

const BASE = '/v1/default/banks/{bank_id}/directives';

const requireDirective = (server: ServerContext, bankId: string, id: string): DirectiveRecord => {
  const found = readRecord(server, bankId, DIRECTIVE_KIND, id, DirectiveRecord);
  if (found === undefined) throw notFound(`Directive '${id}' not found`);
  return found;
};

const param = (params: Readonly<Record<string, string>>, name: string): string => params[name] ?? '';

export const directivesModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: BASE,
      handler: ({ params, query, server }) => {
        const bankId = param(params, 'bank_id');
        const tags = listParam(query, 'tags');
        const mode = choiceParam<DirectiveListMatch>(query, 'tags_match', ['any', 'all', 'exact'], 'any');
        const activeOnly = boolParam(query, 'active_only', true);
        const limit = intParam(query, 'limit', 100, 1, 1000);
        const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const matched = readRecords(server, bankId, DIRECTIVE_KIND, DirectiveRecord)
          .filter((d) => directiveListed(d, tags, mode, activeOnly))
          .sort(compareDirectives);
        const items = matched
          .slice(offset, offset + limit)
          .map((d) => directiveResponse(bankId, d));
        // 0.10 pages these lists with total/limit/offset; 0.9.1 answers the items only.
        return { body: server.mimic === '0.10' ? { items, total: matched.length, limit, offset } : { items } };
      },
    },
    {
      method: 'POST',
      pattern: BASE,
      handler: async ({ params, body, server }) => {
        const bankId = param(params, 'bank_id');
        const req = decodeOr422(CreateDirectiveBody, body);
        const now = server.nowIso();
        const directive: DirectiveRecord = {
          id: randomUUID(),
          name: req.name,
          content: req.content,
          priority: req.priority ?? 0,
          is_active: req.is_active ?? true,
          tags: req.tags ?? [],
          created_at: now,
          updated_at: now,
        };
        await server.store.commit([...ensureBankMutations(server, bankId), putRecord(bankId, DIRECTIVE_KIND, directive.id, directive)]);
        return { body: directiveResponse(bankId, directive), headers: ignoredHeader(unknownFields(CreateDirectiveBody, body)) };
      },
    },
    {
      method: 'GET',
      pattern: `${BASE}/{directive_id}`,
      handler: ({ params, server }) => {
        const bankId = param(params, 'bank_id');
        return { body: directiveResponse(bankId, requireDirective(server, bankId, param(params, 'directive_id'))) };
      },
    },
    {
      method: 'PATCH',
      pattern: `${BASE}/{directive_id}`,
      handler: async ({ params, body, server }) => {
        const bankId = param(params, 'bank_id');
        const req = decodeOr422(UpdateDirectiveBody, body ?? {});
        return server.store.exclusive(bankId, async () => {
          const old = requireDirective(server, bankId, param(params, 'directive_id'));
          const next: DirectiveRecord = {
            ...old,
            ...(req.name === undefined || req.name === null ? {} : { name: req.name }),
            ...(req.content === undefined || req.content === null ? {} : { content: req.content }),
            ...(req.priority === undefined || req.priority === null ? {} : { priority: req.priority }),
            ...(req.is_active === undefined || req.is_active === null ? {} : { is_active: req.is_active }),
            ...(req.tags === undefined || req.tags === null ? {} : { tags: req.tags }),
            updated_at: server.nowIso(),
          };
          await server.store.commit([putRecord(bankId, DIRECTIVE_KIND, next.id, next)]);
          return { body: directiveResponse(bankId, next), headers: ignoredHeader(unknownFields(UpdateDirectiveBody, body)) };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: `${BASE}/{directive_id}`,
      handler: async ({ params, server }) => {
        const bankId = param(params, 'bank_id');
        const id = param(params, 'directive_id');
        requireDirective(server, bankId, id);
        await server.store.commit([deleteRecord(bankId, DIRECTIVE_KIND, id)]);
        return { body: { status: 'deleted' } };
      },
    },
  ],
};
