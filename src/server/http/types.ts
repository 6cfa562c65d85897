/** What a route handler receives and returns. */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerContext } from '../context.js';

export interface RequestContext {
  readonly method: string;
  /** Decoded path without the query string, e.g. `/v1/default/banks/b1/memories`. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body; `undefined` when the request had none. */
  readonly body: unknown;
  readonly server: ServerContext;
}

export interface Reply {
  readonly status?: number;
  readonly body: unknown;
  /** A non-JSON answer (Prometheus text): sent as is with this content type instead of `body`. */
  readonly raw?: { readonly contentType: string; readonly text: string };
  readonly headers?: Readonly<Record<string, string>>;
}
