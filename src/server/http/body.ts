/**
 * Reads a request body with a size limit and parses it as JSON, after checking its nesting
 * depth on the raw bytes: a 200,000-deep body would otherwise overflow the stack of every
 * recursive walk after the parse (decoding, redaction, the error reply) and end the process.
 * Errors never echo the body.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Deeper than any request the API defines (metadata and tag groups nest a few levels). */
const MAX_JSON_DEPTH = 64;

/** How much of a refused body is read and dropped before the connection is closed anyway. */
const DRAIN_MAX_BYTES = 256 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

/**
 * A body over the limit. Its 413 goes out at once with `Connection: close`, but the connection
 * is closed only once the rest of the body has been read and dropped (`drained`): closing with
 * unread bytes makes the kernel reset the connection, and a client still writing then reads
 * ECONNRESET or EPIPE instead of the 413 already sent.
 */
export class BodyTooLarge extends HttpError {
  constructor(
    limit: number,
    readonly drained: Promise<void>,
  ) {
    super(413, `Request body too large: more than ${limit} bytes; send smaller batches`, { Connection: 'close' });
  }
}

const declaresOverLimit = (req: IncomingMessage, limit: number): boolean => {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  return Number.isFinite(declared) && declared > limit;
};

/** Reads and drops the rest of a refused body: resolves at its end, or after the drain caps. */
const drain = (req: IncomingMessage, alreadyRead: number): Promise<void> =>
  new Promise((resolve) => {
    let dropped = alreadyRead;
    const timer = setTimeout(done, DRAIN_MAX_MS);
    timer.unref();
    function done(): void {
      clearTimeout(timer);
      req.off('data', onData);
      resolve();
    }
    function onData(chunk: Buffer): void {
      dropped += chunk.length;
      if (dropped > DRAIN_MAX_BYTES) done();
    }
    if (req.complete) {
      done();
      return;
    }
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });

/**
 * The refusal of a request that declares a body over `limit`, or undefined. A client that sent
 * `Expect: 100-continue` gets it before it sends the body; any other has the rest dropped.
 */
export const refuseDeclared = (req: IncomingMessage, limit = MAX_BODY_BYTES): BodyTooLarge | undefined =>
  declaresOverLimit(req, limit) ? new BodyTooLarge(limit, drain(req, 0)) : undefined;

export const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // A declared length over the limit is refused before a byte is kept.
    const refused = refuseDeclared(req, limit);
    if (refused !== undefined) {
      reject(refused);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        req.off('data', onData);
        reject(new BodyTooLarge(limit, drain(req, size)));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!failed) reject(error);
    });
  });

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether `raw` (JSON text) nests objects/arrays deeper than `max`; one pass, no allocation.
 * A string is passed over by the buffer's native search for its closing quote (a quote after an
 * odd run of backslashes is escaped): an import's body is nearly all string, and reading it byte
 * by byte was the larger part of this check.
 */
export const nestingExceeds = (raw: Buffer, max: number): boolean => {
  let depth = 0;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i];
    if (byte === QUOTE) {
      let close = raw.indexOf(QUOTE, i + 1);
      while (close >= 0) {
        let backslashes = 0;
        while (raw[close - 1 - backslashes] === BACKSLASH) backslashes += 1;
        if (backslashes % 2 === 0) break;
        close = raw.indexOf(QUOTE, close + 1);
      }
      // An unterminated string holds the rest of the text: nothing deeper follows.
      if (close < 0) return false;
      i = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
  return false;
};

/** An empty body is `undefined`; invalid JSON is FastAPI's 422 `json_invalid`; too deep is 400. */
export const parseJsonBody = (raw: Buffer, maxDepth = MAX_JSON_DEPTH): unknown => {
  if (raw.length === 0) return undefined;
  if (nestingExceeds(raw, maxDepth)) throw new HttpError(400, `JSON nested deeper than ${maxDepth} levels; send a flatter body`);
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return parsed;
  } catch {
    // The parser's message quotes the body: say only what is wrong.
    throw new HttpError(422, [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error: the body is not valid JSON' }]);
  }
};
