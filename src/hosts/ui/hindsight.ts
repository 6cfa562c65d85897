/**
 * The memory browser's line to the Hindsight server the config names: the client adapter's
 * transport with the key the config resolves (`resolveApiKey`, withheld from an origin the user
 * does not trust), so the page talks only to this process and never holds the key. Answers are
 * parsed JSON with their status; a transport failure is a 502 naming the server, never thrown.
 */
import { createTransport, type HttpMethod, type QueryValue } from '../../adapters/server/http.js';
import { dotSegment, dotSegmentRefusal } from '../../adapters/server/pathStep.js';
import type { LoadedConfig } from '../../config/load.js';
import { rememberSecretValues } from '../../config/redact.js';
import { resolveApiKey, trustNotice } from '../../config/trust.js';

export interface HindsightAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The server marks itself embedded (`X-Hindsight-Embedded: 1`). */
  readonly embedded: boolean;
}

export interface HindsightLine {
  /** The server root, without credentials. */
  readonly baseUrl: string;
  call(method: HttpMethod, path: string, options?: { readonly query?: Readonly<Record<string, QueryValue>>; readonly body?: unknown }): Promise<HindsightAnswer>;
}

export const bankPath = (bankId: string, rest = ''): string => `/v1/default/banks/${encodeURIComponent(bankId)}${rest}`;

const TIMEOUT_MS = 15_000;

/**
 * The line for a loaded config; refuses (throws, saying why) an origin the user does not
 * trust. `own` is a server this process runs itself (`serve`'s embedded server), with its key.
 */
export const hindsightLine = (loaded: LoadedConfig, env: NodeJS.ProcessEnv, own?: { readonly baseUrl: string; readonly apiKey?: string }): HindsightLine => {
  let baseUrl: string;
  let apiKey: string | undefined;
  if (own !== undefined) {
    baseUrl = own.baseUrl;
    apiKey = own.apiKey;
  } else {
    baseUrl = loaded.config.baseUrl;
    const distrust = trustNotice(loaded.trust);
    if (distrust !== undefined) throw new Error(`the memory server ${baseUrl} is not trusted: ${distrust}`);
    const key = resolveApiKey(loaded, env);
    apiKey = key._tag === 'key' ? key.key : undefined;
  }
  // Hidden from everything this process prints or sends, the page included.
  if (apiKey !== undefined) rememberSecretValues([apiKey]);
  const transport = createTransport({ baseUrl, userAgent: 'agent-memory-ui', ...(apiKey === undefined ? {} : { apiKey }) });
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    call: async (method, path, options = {}) => {
      // A memory's document id comes from the server: `..` must not turn a delete into the bank's.
      const step = dotSegment(path);
      if (step !== undefined) return { status: 400, body: { detail: dotSegmentRefusal(step, method) }, embedded: false };
      const sent = await transport.send({ method, path, ...(options.query === undefined ? {} : { query: options.query }), ...(options.body === undefined ? {} : { body: options.body }) }, { timeoutMs: TIMEOUT_MS });
      if (!sent.ok) return { status: 502, body: { detail: `the memory server at ${baseUrl} did not answer (${sent.facts.code ?? sent.facts.name}); is it running?` }, embedded: false };
      let body: unknown = sent.response.body;
      try {
        body = JSON.parse(sent.response.body);
      } catch {
        // Not JSON: passed on as text.
      }
      return { status: sent.response.status, body, embedded: sent.response.embedded };
    },
  };
};
