/**
 * Who may talk to the embedded server, checked before anything else of a request is read.
 *
 * - Host: a loopback name or a host the server was configured with. A web page that rebinds
 *   its own DNS name to 127.0.0.1 still sends `Host: attacker.example`, so it is refused.
 * - Origin: browsers send it on every cross-origin POST, `no-cors` included; any origin other
 *   than the server's own is refused (403), and so is a `Sec-Fetch-Site` other than
 *   same-origin or none (a user typing the URL).
 * - Content type: a POST, PUT or PATCH with a body must be `application/json`, which a page
 *   cannot send without a CORS preflight that this server never grants. Multipart is let
 *   through only on routes that declare it (`Route.multipart`); checked after routing.
 * Refusals never echo the header values they refused.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { HttpError } from './errors.js';

/** Names that always mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/** True for 127.0.0.0/8, ::1, localhost and `*.localhost` (RFC 6761: always loopback). */
export const isLoopbackHost = (host: string): boolean => {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(name);
  return false;
};

/** A bind address that listens on every interface. */
export const isWildcardHost = (host: string): boolean => {
  const name = host.replace(/^\[|\]$/g, '');
  return name === '0.0.0.0' || name === '::' || name === '0:0:0:0:0:0:0:0';
};

export interface GuardOptions {
  /** Host names (lower case, IPv6 without brackets) accepted besides loopback names. */
  readonly allowedHosts: ReadonlySet<string>;
  /** The port the server listens on, for the same-origin check. */
  readonly port: () => number;
}

/** The host name of a `Host` header value (`name:port`, `[v6]:port`), lower case, no brackets. */
const hostnameOf = (value: string): string | undefined => {
  try {
    return new URL(`http://${value}`).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
};

const hostAllowed = (name: string, options: GuardOptions): boolean => isLoopbackHost(name) || options.allowedHosts.has(name);

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

const mediaType = (value: string): string => (value.split(';')[0] ?? '').trim().toLowerCase();

const isJson = (type: string): boolean => type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));

const hasBody = (headers: IncomingHttpHeaders): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** Throws the refusal (403) for a request from a host or origin this server must not serve. */
export const guardRequest = (headers: IncomingHttpHeaders, options: GuardOptions): void => {
  const host = single(headers.host);
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (hostname === undefined || !hostAllowed(hostname, options)) {
    throw new HttpError(403, 'Host not allowed: this server answers only to loopback names and its configured host (DNS rebinding protection)');
  }
  const origin = single(headers.origin);
  if (origin !== undefined && !sameOrigin(origin, options)) {
    throw new HttpError(403, 'Cross-origin requests are refused: a web page may not read or write memories');
  }
  const site = single(headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, 'Cross-site requests are refused: a web page may not read or write memories');
  }
};

/**
 * Throws 415 for a POST, PUT or PATCH whose body is not JSON; `multipart/form-data` passes
 * only on a route that declares it (`Route.multipart`, the spec's upload routes).
 */
export const guardContentType = (method: string, headers: IncomingHttpHeaders, multipartRoute: boolean): void => {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return;
  const declared = single(headers['content-type']);
  if (declared === undefined && !hasBody(headers)) return;
  const type = declared === undefined ? '' : mediaType(declared);
  if (isJson(type)) return;
  if (type === 'multipart/form-data' && multipartRoute) return;
  throw new HttpError(415, 'Unsupported Media Type: send the body as application/json');
};

const sameOrigin = (origin: string, options: GuardOptions): boolean => {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file:) and anything unparsable
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return url.protocol === 'http:' && port === options.port() && hostAllowed(url.hostname.toLowerCase().replace(/^\[|\]$/g, ''), options);
};
