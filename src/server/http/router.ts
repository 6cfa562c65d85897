/**
 * The route table: `{method, pattern, handler}` rows, matched in order. Patterns use
 * `{name}` for one path segment and `{name:path}` for the rest of the path (document ids
 * may contain `/`). Static segments win because routes are tried in table order and the
 * table lists `memories/list` before `memories/{memory_id}`.
 */
import type { RequestContext, Reply } from './types.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  readonly method: Method;
  readonly pattern: string;
  readonly handler: (ctx: RequestContext) => Promise<Reply> | Reply;
  /** First Hindsight version with this route; hidden (404) when the server mimics an older one. */
  readonly since?: string;
  /** Keep explicit nulls in the response (routes whose model has a required nullable field). */
  readonly keepNulls?: boolean;
  /**
   * The route takes `multipart/form-data` (file uploads): such a body reaches the handler as
   * `undefined` instead of being parsed as JSON, so the handler can answer what it does with it.
   */
  readonly multipart?: boolean;
}

export interface CompiledRoute extends Route {
  readonly regex: RegExp;
  readonly names: readonly string[];
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const compileRoute = (route: Route): CompiledRoute => {
  const names: string[] = [];
  const source = route.pattern
    .split(/(\{[a-z_]+(?::path)?\})/)
    .map((part) => {
      const m = /^\{([a-z_]+)(:path)?\}$/.exec(part);
      if (m === null) return escapeRegex(part);
      names.push(m[1] ?? '');
      return m[2] === undefined ? '([^/]+)' : '(.+)';
    })
    .join('');
  return { ...route, regex: new RegExp(`^${source}$`), names };
};

export type RouteMatch =
  | { readonly kind: 'found'; readonly route: CompiledRoute; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'methodNotAllowed' }
  | { readonly kind: 'notFound' };

const decodeSegment = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

export const matchRoute = (routes: readonly CompiledRoute[], method: string, path: string): RouteMatch => {
  let pathKnown = false;
  for (const route of routes) {
    const m = route.regex.exec(path);
    if (m === null) continue;
    if (route.method !== method) {
      pathKnown = true;
      continue;
    }
    const params: Record<string, string> = {};
    let ok = true;
    route.names.forEach((name, i) => {
      const value = decodeSegment(m[i + 1] ?? '');
      if (value === undefined) ok = false;
      else params[name] = value;
    });
    if (!ok) return { kind: 'notFound' };
    return { kind: 'found', route, params };
  }
  return pathKnown ? { kind: 'methodNotAllowed' } : { kind: 'notFound' };
};

/** Semver-ish comparison of `x.y.z` strings, enough for route gating. */
export const versionAtLeast = (version: string, floor: string): boolean => {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
};
