/** Reads a request body with a size limit and parses it as JSON. */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.js';

export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new HttpError(413, `Request body too large: more than ${limit} bytes; send smaller batches`));
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

/** An empty body is `undefined`; invalid JSON is FastAPI's 422 `json_invalid`. */
export const parseJsonBody = (raw: Buffer): unknown => {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const msg = cause instanceof Error ? cause.message : String(cause);
    throw new HttpError(422, [{ type: 'json_invalid', loc: ['body', 0], msg: `JSON decode error: ${msg}`, input: {} }]);
  }
};
