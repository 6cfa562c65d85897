/**
 * Breaker state in a small JSON file (`{state_dir}/memory/server-health.json` is the intended
 * place), written atomically (temp file + rename). The file names its base URL, so a changed
 * `baseUrl` starts closed. Read and write failures are ignored: the file only saves a new
 * process from re-learning that the server is down, and never blocks a call.
 */
import { dirname } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { BreakerState } from '../../effects/ports/memoryServer.js';
import { decodeJson } from '../../codecs/decode.js';
import type { BreakerPersistence } from './breaker.js';
import { ensurePrivateDirSync, readStateFileSync, writePrivateFileSync } from '../fs/safeFile.js';

const HealthFile = t.type({
  v: t.literal(1),
  baseUrl: t.string,
  state: t.intersection([
    t.type({ state: t.keyof({ closed: null, open: null, halfOpen: null }), failures: t.number }),
    t.partial({ retryAt: t.number }),
  ]),
});

export const breakerFile = (path: string, baseUrl: string): BreakerPersistence => ({
  load: () => {
    let text: string | undefined;
    try {
      text = readStateFileSync(path, 64 * 1024);
    } catch {
      return undefined;
    }
    if (text === undefined) return undefined;
    const decoded = decodeJson(HealthFile, path)(text);
    if (E.isLeft(decoded) || decoded.right.baseUrl !== baseUrl) return undefined;
    const { state, failures, retryAt } = decoded.right.state;
    return retryAt === undefined ? { state, failures } : { state, failures, retryAt };
  },
  save: (state: BreakerState) => {
    try {
      ensurePrivateDirSync(dirname(path));
      writePrivateFileSync(path, `${JSON.stringify({ v: 1, baseUrl, state })}\n`);
    } catch {
      // Best effort by design (see the header): a read-only state dir still gets a breaker.
    }
  },
});
