/**
 * The two checks every pasted-secret test makes (`test/security/*Secrets.test.ts`): the
 * redactor hides each part of a paste's secret and keeps the text around it, and the real
 * `memory_retain` tool (real queue, embedded server) writes none of it to the queue journal or
 * the server's documents.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, redact } from '../../src/config/redact.js';
import { cleanText } from '../../src/effects/session/retainProjection.js';
import { CODING_BANK, startHarness, type Harness } from '../tools/harness.js';
import { call } from './embeddedServer.js';
import { startFaultServer } from './faultServer.js';
import { waitUntil } from './waitUntil.js';

/** [name, pasted text, the secret or every part of it (none may survive), a part of the text that must stay readable]. */
export type Paste = readonly [name: string, text: string, secret: string | readonly string[], kept: string];

const partsOf = (secret: string | readonly string[]): readonly string[] => (typeof secret === 'string' ? [secret] : secret);

// Fields the queue and the server make themselves (random or hashed ids, checksums, clocks): a
// short digit secret such as "4711" turned up inside a job's UUID by chance. Their values are
// blanked before looking for a secret's parts; every field that carries text is still read.
const MACHINE_FIELD = /"(?:id|jobId|jobIds|operationId|operation_id|idempotencyKey|checksum|contentHash|owner|at|enqueuedAt|documentId|document_id|created_at|updated_at|mentioned_at|occurred_start|occurred_end|date|timestamp)":(?:"[^"]*"|-?\d+(?:\.\d+)?|\[(?:"[^"]*",?)*\])/g;
export const withoutMachineFields = (text: string): string => text.replace(MACHINE_FIELD, '"":""');

/** `redact` hides every part, keeps `kept`, and a second pass changes nothing. */
export const expectPasteRedacted = (text: string, secret: string | readonly string[], kept: string): void => {
  const out = redact(text);
  for (const part of partsOf(secret)) expect(out).not.toContain(part);
  expect(out).toContain(REDACTED);
  expect(out).toContain(kept);
  expect(redact(out)).toBe(out);
};

/** One test a paste: `redact` hides every part and keeps the text around it, and a retained run's cleaned text (the projection's `cleanText`) holds no part either. */
export const itHidesEachPaste = (pastes: readonly Paste[]): void => {
  it.each(pastes.map((p) => [p[0], p] as const))('%s: hidden, the text around kept, by redact and a run', (_name, [, text, secret, kept]) => {
    expectPasteRedacted(text, secret, kept);
    const cleaned = cleanText(text);
    for (const part of partsOf(secret)) expect(cleaned).not.toContain(part);
  });
};

const B = '/v1/default/banks';

/** Each paste retained through `memory_retain`; then the queue journal's text and every stored document of the coding bank. */
export const retainPastes = async (h: Harness, pastes: readonly Paste[]): Promise<{ journal: string; held: string }> => {
  for (const [name, text] of pastes) {
    await h.ok('memory_retain', { content: `Note on ${name}: ${text}`, context: `pasted ${name}` });
  }
  const journal = withoutMachineFields(readFileSync(h.queuePath, 'utf8'));
  const docs = await call(h, 'GET', `${B}/${CODING_BANK}/documents?limit=1000`);
  const items = docs.status === 200 ? (docs.body.items as { id: string }[]) : [];
  const held = (await Promise.all(items.map(async (d) => JSON.stringify((await call(h, 'GET', `${B}/${CODING_BANK}/documents/${encodeURIComponent(d.id)}`)).body)))).join('\n');
  return { journal, held: withoutMachineFields(held) };
};

/** A describe block: every paste goes through the real `memory_retain`; the journal and the server hold each note and no part of its secret. */
export const describeRetainedPastes = (pastes: readonly Paste[]): void => {
  describe('they never reach the queue journal or the server (real memory_retain, real queue, embedded server)', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => {
      await h.close();
    });

    it('every part of every paste is replaced before the write and before the send', async () => {
      const { journal, held } = await retainPastes(h, pastes);
      for (const [name, , secret] of pastes) {
        expect(journal, name).toContain(`Note on ${name}`);
        expect(held, name).toContain(`Note on ${name}`);
        for (const part of partsOf(secret)) {
          expect(journal, `${name}: ${part}`).not.toContain(part);
          expect(held, `${name}: ${part}`).not.toContain(part);
        }
      }
    }, 60_000);
  });
};

/**
 * Each `[text, part]` retained through the real `memory_retain` (real queue, a recording server):
 * no request body and no queue journal line holds `part`, as written, NFKC-composed or
 * JSON-escaped, and the text around it reached the server.
 */
export const expectRetainSendsNone = async (cases: readonly (readonly [text: string, part: string])[]): Promise<void> => {
  const server = await startFaultServer();
  server.setFallback(() => ({ kind: 'json', status: 200, body: { success: true, bank_id: 'coding-bank', items_count: 1, async: false } }));
  const h = await startHarness({ serverUrl: server.url });
  try {
    for (const [text] of cases) {
      const outcome = await h.run('memory_retain', { content: `deploy note: ${text}`, context: 'a note' });
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    }
    await waitUntil(() => server.requests.filter((r) => r.path.includes('/memories')).length >= cases.length, 20_000);
    const sent = withoutMachineFields(server.requests.map((r) => r.body).join('\n'));
    const journal = withoutMachineFields(readFileSync(h.queuePath, 'utf8'));
    for (const [, part] of cases) {
      for (const form of [part, part.normalize('NFKC'), JSON.stringify(part).slice(1, -1)]) {
        expect(sent).not.toContain(form);
        expect(journal).not.toContain(form);
      }
    }
    expect(sent).toContain('deploy note: ');
  } finally {
    await h.close();
    await server.close();
  }
};
