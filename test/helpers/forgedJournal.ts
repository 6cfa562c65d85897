/**
 * A retain queue journal as anyone who reads the format can write it, checksums included: one
 * job for `bankId` with `tags`. What a cloned repository commits (test/security/foreignQueue), and
 * what memory sets aside as not written by this user.
 */
import { encodeRecord } from '../../src/adapters/queue/recordCodec.js';
import type { JournalEntry } from '../../src/effects/ports/journal.js';

export const forgedJournal = (o: { readonly jobId: string; readonly content: string; readonly bankId: string; readonly tags: readonly string[] }): string => {
  const job = {
    jobId: o.jobId,
    bankId: o.bankId,
    documentId: `pi-explicit:${o.jobId}`,
    updateMode: 'replace',
    item: { content: o.content, context: 'team conventions', document_id: `pi-explicit:${o.jobId}`, tags: [...o.tags], metadata: { source: 'agent-memory', retainSource: 'tool' }, update_mode: 'replace' },
    contentHash: 'a'.repeat(64),
    idempotencyKey: o.jobId,
    enqueuedAt: '2026-11-01T00:00:00.000Z',
  };
  const at = '2026-11-01T00:00:00.000Z';
  const entries: JournalEntry[] = [
    { type: 'retain.opened', at, payload: { owner: 'vm:1:forged', at: 1, type: 'retain.opened' } },
    { type: 'retain.enqueued', at, payload: { jobs: [job], at: 1, type: 'retain.enqueued' } },
  ];
  return entries.map((entry, seq) => encodeRecord(entry, seq).line).join('');
};
