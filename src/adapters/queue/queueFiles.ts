/**
 * Every file of one retain queue, derived from the queue path in one place (the seed looked
 * for a dead-letter name it never wrote).
 */
import path from 'node:path';
import { closeSync, fstatSync, fsyncSync } from 'node:fs';
import { fsyncDirectorySync } from '../fs/atomicFile.js';
import { knownSecretCount, redactKnownValues } from '../../config/redact.js';
import { openStateFileSync, writeAllSync } from '../fs/safeFile.js';

export interface QueueFiles {
  /** The journal: `retain-queue.jsonl`. */
  readonly journal: string;
  /** Mutation lock: every write to the journal happens under it. */
  readonly lock: string;
  /** Delivery lease: only its holder sends jobs to the server. */
  readonly lease: string;
  /** Damaged bytes moved aside, never silently dropped. */
  readonly quarantine: string;
  /** Jobs the server refused for good, with its reason. */
  readonly deadLetters: string;
  /** The last deliveries (lowdb JSON document). */
  readonly receipts: string;
  /** This user's mark for the journal (`queueOwner.ts`): a journal without it is set aside. */
  readonly owner: string;
}

export const queueFiles = (journalPath: string): QueueFiles => {
  const base = journalPath.endsWith('.jsonl') ? journalPath.slice(0, -'.jsonl'.length) : journalPath;
  return {
    journal: journalPath,
    lock: `${base}.lock`,
    lease: `${base}.lease`,
    quarantine: `${base}.quarantine.jsonl`,
    deadLetters: `${base}.dead.jsonl`,
    receipts: `${base}.receipts.json`,
    owner: `${base}.owner`,
  };
};

const redacted = (raw: Buffer): Buffer => {
  // Dead letters and quarantined bytes too: no known secret value is appended to any queue file.
  // With none known, `redactKnownValues` returns every text as it is: the bytes need no decoding.
  if (knownSecretCount() === 0) return raw;
  const text = raw.toString('utf8');
  const clean = redactKnownValues(text);
  return clean === text ? raw : Buffer.from(clean);
};

/** `appendDurableSync` with an async face (a failure rejects): dead letters. */
export const appendDurable = async (file: string, raw: Buffer): Promise<{ created: boolean }> => appendDurableSync(file, raw);

/**
 * Appends `data` to `file` (created 0600 if missing; a symlink or non-regular file is refused,
 * never followed) and fsyncs it before returning; a new file's directory is fsync'd too, so the
 * new name survives a power cut. Synchronous: the journal appends under its lock without yielding.
 */
export const appendDurableSync = (file: string, raw: Buffer): { created: boolean } => {
  const data = redacted(raw);
  const fd = openStateFileSync(file, 'append');
  let created: boolean;
  try {
    writeAllSync(fd, data);
    fsyncSync(fd);
    // The size equals what we wrote only when the file was empty: then it may be new.
    created = fstatSync(fd).size === data.length;
  } finally {
    closeSync(fd);
  }
  if (created) fsyncDirectorySync(path.dirname(file));
  return { created };
};
