/**
 * Optional API-key auth, as upstream's ApiKeyTenantExtension: `Authorization: Bearer <key>`
 * or the bare key. Compared in constant time; the key never appears in a response or log.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http/errors.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export const checkApiKey = (expected: string | undefined, header: string | undefined): void => {
  if (expected === undefined) return;
  const presented = header?.replace(/^Bearer\s+/i, '').trim() ?? '';
  if (presented.length === 0 || !timingSafeEqual(digest(presented), digest(expected))) {
    throw new HttpError(401, 'Invalid API key');
  }
};
