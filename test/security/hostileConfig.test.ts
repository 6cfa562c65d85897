/**
 * Adversary round (issue 26, "a further round"): a repository's project file with hostile values
 * in every field. A duration past what a Node timer can wait (`memory.timeoutMs: 3000000000`)
 * was accepted: Node cuts such a timer to 1 ms, so every call to the server timed out at once
 * ("no answer within 3000000000 ms") and a periodic flush (`retain.flushIntervalMs`) would spin
 * every millisecond. Real config files, `loadConfig`, and the real client against the embedded
 * server with the timeout the project file asked for.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { MAX_RECALL_DEADLINE_MS, MAX_SERVER_TIMEOUT_MS, MAX_TIMER_MS } from '../../src/codecs/codecs.js';
import { decodeWith } from '../../src/codecs/decode.js';
import { fieldList } from '../../src/config/fields.js';
import { loadConfig } from '../../src/config/load.js';
import { redact } from '../../src/config/redact.js';
import { makeSandbox, nest, type ConfigSandbox } from '../config/helpers.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const HOSTILE: readonly unknown[] = [
  -1,
  0,
  1.5,
  1e308,
  MAX_TIMER_MS + 1,
  3_000_000_000,
  Number.MAX_SAFE_INTEGER,
  'NaN',
  'Infinity',
  '-0',
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202egnp.exe',
  '\u{E0041}\u{E0042}',
  '../../../../etc/passwd',
  '/etc/passwd',
  '~/../../etc',
  'x'.repeat(100_000),
  [],
  ['\u0000'],
  {},
  { __proto__: { polluted: true } },
  null,
  true,
];

let box: ConfigSandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

describe('a project file with hostile values in every field', () => {
  it('never throws; every field keeps a value its codec accepts, and every refusal names the field', () => {
    for (const spec of fieldList) {
      for (const value of HOSTILE) {
        box.writeProject(nest(spec.path, value));
        const loaded = loadConfig({ cwd: box.cwd, home: box.home, env: {} });
        const kept = (loaded.config as unknown as Record<string, unknown>)[spec.name];
        const decoded = decodeWith(spec.codec, spec.path)(kept);
        expect(E.isRight(decoded), `${spec.path} = ${JSON.stringify(value)?.slice(0, 40)} left ${JSON.stringify(kept)?.slice(0, 80)}`).toBe(true);
        for (const warning of loaded.warnings) expect(warning.message).toMatch(/field /);
        expect(Object.prototype).not.toHaveProperty('polluted');
      }
    }
  });

  it('a duration no timer can wait is refused by field and the default applies: memory.timeoutMs, recall.timeoutMs, retain.flushIntervalMs', () => {
    // Automatic recall's deadline is bounded tighter (round 10, `promptDeadline.test.ts`), and a
    // network call's since round 12 (`numericBounds.test.ts`).
    for (const [field, fallback, longest] of [
      ['memory.timeoutMs', 30_000, MAX_SERVER_TIMEOUT_MS],
      ['recall.timeoutMs', 1_500, MAX_RECALL_DEADLINE_MS],
      ['retain.flushIntervalMs', 0, MAX_TIMER_MS],
    ] as const) {
      for (const value of [MAX_TIMER_MS + 1, 3_000_000_000, Number.MAX_SAFE_INTEGER]) {
        box.writeProject(nest(field, value));
        const loaded = loadConfig({ cwd: box.cwd, home: box.home, env: {} });
        const spec = fieldList.find((f) => f.path === field);
        expect((loaded.config as unknown as Record<string, unknown>)[spec?.name ?? '']).toBe(fallback);
        expect(loaded.warnings.map((w) => w.message).join('\n')).toContain(`field ${field}`);
      }
      // The longest a timer can wait (recall: its bound) is still a value the person may choose.
      box.writeProject(nest(field, longest));
      const spec = fieldList.find((f) => f.path === field);
      expect((loadConfig({ cwd: box.cwd, home: box.home, env: {} }).config as unknown as Record<string, unknown>)[spec?.name ?? '']).toBe(longest);
    }
  });
});

describe('a project file with a 100 KB memory.apiKeyDirect', () => {
  it('redaction keeps working for the rest of the process, and still hides that value', () => {
    const huge = `k${'x'.repeat(100_000)}`;
    box.writeProject({ memory: { apiKeyDirect: huge } });
    expect(() => loadConfig({ cwd: box.cwd, home: box.home, env: {} })).not.toThrow();
    // The forms of every remembered value were one regex, too big to compile: every later
    // redaction in the process threw (each hook with it).
    expect(redact('an ordinary line with nothing secret')).toBe('an ordinary line with nothing secret');
    expect(redact(`before ${huge} after`)).toBe('before [REDACTED] after');
    expect(redact(`b64 ${Buffer.from(huge).toString('base64')}`)).not.toContain(Buffer.from(huge).toString('base64').slice(0, 64));
  });
});

describe('the client with the timeout a project file asked for (real embedded server)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('memory.timeoutMs 3000000000 in a project file: a recall still answers instead of timing out at once', async () => {
    box.writeProject({ memory: { timeoutMs: 3_000_000_000 } });
    const { config } = loadConfig({ cwd: box.cwd, home: box.home, env: {} });
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: config.timeoutMs });
    const result = await client.recall('hostile-timeout', { query: 'anything' })();
    expect(E.isRight(result), JSON.stringify(result)).toBe(true);
  });
});
