/**
 * Reads a request body with a size limit and parses it as JSON, after checking its nesting
 * depth on the raw bytes: a 200,000-deep body would otherwise overflow the stack of every
 * recursive walk after the parse (decoding, redaction, the error reply) and end the process.
 * Errors never echo the body.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Deeper than any request the API defines (metadata and tag groups nest a few levels). */
export const MAX_JSON_DEPTH = 64;

const tooLarge = (limit: number): HttpError => new HttpError(413, `Request body too large: more than ${limit} bytes; send smaller batches`);

export const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // A declared length over the limit is refused before a byte is read.
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
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

/** Whether `raw` (JSON text) nests objects/arrays deeper than `max`; one pass, no allocation. */
export const nestingExceeds = (raw: Buffer, max: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
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
