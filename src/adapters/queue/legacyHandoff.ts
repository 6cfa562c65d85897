/**
 * Reads what the retired hand-off log (`retain-handoff.jsonl`, before the queue journal became
 * the one record of a job) still holds, once, so an upgrade loses no run: the runs it handed
 * off that the queue never confirmed, and every fingerprint it carried for the cursor. The
 * runtime queues those runs and then removes the file.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeJson } from '../../codecs/decode.js';
import { RetainItem } from '../../effects/ports/memoryServer.js';
import { readStateFileSync } from '../fs/safeFile.js';

const JobDraft = t.intersection([
  t.type({ bankId: t.string, documentId: t.string, updateMode: t.literal('append'), item: RetainItem }),
  t.partial({ async: t.boolean }),
]);
const HandoffLine = t.union([
  t.type({ v: t.literal(1), kind: t.literal('job'), key: t.string, sessionId: t.string, fingerprints: t.array(t.string), jobs: t.array(JobDraft) }),
  t.type({ v: t.literal(1), kind: t.literal('done'), key: t.string }),
]);

export interface LegacyRun {
  readonly key: string;
  readonly sessionId: string;
  readonly fingerprints: readonly string[];
  readonly jobs: readonly t.TypeOf<typeof JobDraft>[];
}

export interface LegacyHandoff {
  /** Runs handed off but never confirmed queued. */
  readonly open: readonly LegacyRun[];
  /** Every fingerprint the log carried, by session (confirmed runs too). */
  readonly seen: ReadonlyMap<string, readonly string[]>;
  /** Removes the file (once its runs are queued). */
  remove(): void;
}

/** Bound of what is read back: far above a real backlog, far below what exhausts memory. */
const MAX_READ_BYTES = 64 * 1024 * 1024;

/** Undefined when there is no such file; a symlinked or non-regular file throws (never followed). */
export const readLegacyHandoff = (memoryDir: string): LegacyHandoff | undefined => {
  const file = path.join(memoryDir, 'retain-handoff.jsonl');
  const text = readStateFileSync(file, MAX_READ_BYTES);
  if (text === undefined) return undefined;
  const decode = decodeJson(HandoffLine, `retain hand-off ${file}`);
  const open = new Map<string, LegacyRun>();
  const seen = new Map<string, string[]>();
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    // A line that does not decode is the fragment of a write that never returned: nothing in it was acknowledged.
    const line = decode(raw);
    if (E.isLeft(line)) continue;
    const value = line.right;
    if (value.kind === 'done') {
      open.delete(value.key);
      continue;
    }
    open.set(value.key, { key: value.key, sessionId: value.sessionId, fingerprints: value.fingerprints, jobs: value.jobs });
    seen.set(value.sessionId, [...(seen.get(value.sessionId) ?? []), ...value.fingerprints]);
  }
  return { open: [...open.values()], seen, remove: () => rmSync(file, { force: true }) };
};
