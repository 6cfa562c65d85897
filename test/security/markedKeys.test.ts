/**
 * Round 10's leftover (round 11): a key disguised with a combining mark (`AKIA\u0301…`, which a
 * turn's NFKC composes to `AKIÁ…`), an accented letter, or a braille blank (U+2800, drawn as
 * nothing) was kept whole by `redact` and in a run: it no longer had its shape. A key-like run
 * (12 characters or more, with a digit, `_` or `-`) holding one is now read without it; prose in
 * any Latin language stays as written. The real redactor, the real projection of a run, and the
 * real `memory_retain` against a scripted server that records what it is sent.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfigTemplate, type MemoryConfig } from '../../src/config/fields.js';
import { resolveScope } from '../../src/config/scope.js';
import { redact } from '../../src/config/redact.js';
import { nodeIds } from '../../src/adapters/ids/nodeIds.js';
import { buildRetainJobs } from '../../src/effects/session/retainProjection.js';
import { expectRetainSendsNone } from '../helpers/redactedPastes.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });
const now = Date.UTC(2026, 10, 28, 19);
const session = { sessionId: 's-1', sessionFile: '/home/u/.pi/agent/sessions/x/s-1.jsonl', cwd: '/work/proj' };
const contentOf = (text: string): string => buildRetainJobs({ messages: [{ role: 'user', content: text, timestamp: now }], scope, config, session, now, digest: nodeIds.digest }).jobs[0]?.item.content ?? '';

const MARKED: readonly (readonly [string, string])[] = [
  ['key AKIA\u0301IOSFODNN7EXAMPLE end', 'ODNN7EXAMPLE'],
  ['key AKIAIOSF\u2800ODNN7EXAMPLE end', 'ODNN7EXAMPLE'],
  ['tok ghp_abcdefghij\u0301klmnopqrstuvwxyz0123 end', 'klmnopqrstuvwxyz0123'],
  ['tok ghp_abcdefghij\u2800klmnopqrstuvwxyz0123 end', 'klmnopqrstuvwxyz0123'],
  ['sk_live_abc\u0308defghijklmn0 end', 'defghijklmn0'],
  ['ghp_abcdéfghijklmnopqrstuvwxyz0123', 'fghijklmnopqrstuvwxyz0123'],
  ['xoxb-123456\u20dd7890-abcdefghij', '7890-abcdefghij'],
];
const PROSE = ['café résumé naïve 2024', "L'été dernier à Genève, la société a créé 3 rapports.", 'Größe, Übersetzung, Prüfverfahren-2024', 'Tiếng Việt: người, được, nghiên cứu', 'café résumé'.normalize('NFD'), 'braille \u2800 blank'];

describe('keys disguised with marks or braille blanks', () => {
  it.each(MARKED)('%s is hidden by redact and in a run', (text, part) => {
    for (const out of [redact(text), contentOf(text)]) {
      expect(out).toContain('[REDACTED]');
      expect(out).not.toContain(part);
    }
  });

  it.each(PROSE)('%s stays as written', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('memory_retain sends none of them to the server or the queue journal', async () => {
    await expectRetainSendsNone(MARKED);
  }, 60_000);
});
