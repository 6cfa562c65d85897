/**
 * Looks at `{state_dir}` without writing anything: is any state file a symbolic link or not a
 * regular file, and can the directory be written? The runtime refuses memory for a project
 * whose state files are unsafe; status and doctor report the same findings (read-only).
 */
import { accessSync, constants, lstatSync } from 'node:fs';
import * as path from 'node:path';
import { checkStateFileSync, ignoresEverything, isUnsafeFileError, readStateFileSync } from './safeFile.js';
import { errnoCode } from '../../codecs/errno.js';

export interface StateDirFinding {
  /** `unsafe`: a link or non-regular file (memory refuses); `unwritable`, `unreadable`: an I/O problem. */
  readonly kind: 'unsafe' | 'unwritable' | 'unreadable';
  readonly file: string;
  readonly reason: string;
}

export interface StateDirReport {
  readonly memoryDir: string;
  /** False when `{state_dir}/memory` does not exist yet (nothing has been written). */
  readonly exists: boolean;
  /** `{state_dir}/memory/.gitignore` is there and ignores everything, so git never commits the conversation text it holds. */
  readonly ignored: boolean;
  readonly findings: readonly StateDirFinding[];
}

/** A file a config field names (`import.manifestPath`): a finding about it names the field. */
export interface NamedPath {
  readonly file: string;
  readonly field: string;
}

const fileOf = (entry: string | NamedPath): string => (typeof entry === 'string' ? entry : entry.file);

const namedStateFiles = (stateDir: string, queuePath: string, extra: readonly (string | NamedPath)[]): (string | NamedPath)[] => {
  const memoryDir = path.join(stateDir, 'memory');
  const base = queuePath.endsWith('.jsonl') ? queuePath.slice(0, -'.jsonl'.length) : queuePath;
  const queueFile = (file: string): NamedPath => ({ file, field: 'retain.queuePath' });
  return [
    path.join(stateDir, 'memory.json'),
    queueFile(queuePath),
    ...[`${base}.lock`, `${base}.lease`, `${base}.quarantine.jsonl`, `${base}.dead.jsonl`, `${base}.receipts.json`].map(queueFile),
    ...['.gitignore', 'retain-cursors.json', 'last-recall.json', 'server-health.json', 'git-seed-receipt.json', 'scope-migrate-receipt.json'].map((name) =>
      path.join(memoryDir, name),
    ),
    ...extra,
  ];
};

const code = (error: unknown): string => errnoCode(error) ?? 'error';

/** Never throws and never writes. */
export const checkStateDir = (stateDir: string, queuePath: string, extra: readonly (string | NamedPath)[] = []): StateDirReport => {
  const memoryDir = path.join(stateDir, 'memory');
  const findings: StateDirFinding[] = [];
  let exists = false;
  try {
    const stat = lstatSync(memoryDir);
    exists = true;
    if (stat.isSymbolicLink()) findings.push({ kind: 'unsafe', file: memoryDir, reason: `refusing ${memoryDir}: the directory is a symbolic link (a cloned repository can plant one); remove the link` });
    else if (!stat.isDirectory()) findings.push({ kind: 'unsafe', file: memoryDir, reason: `refusing ${memoryDir}: it is not a directory; remove it` });
  } catch (error) {
    if (code(error) !== 'ENOENT') findings.push({ kind: 'unreadable', file: memoryDir, reason: `cannot read ${memoryDir} (${code(error)}); check its permissions` });
  }
  for (const entry of namedStateFiles(stateDir, queuePath, extra)) {
    const file = fileOf(entry);
    try {
      checkStateFileSync(file);
    } catch (error) {
      const named = typeof entry === 'string' ? '' : ` (the file ${entry.field} names)`;
      if (isUnsafeFileError(error)) findings.push({ kind: 'unsafe', file, reason: `${error.message}${named}` });
      else if (code(error) !== 'ENOTDIR') findings.push({ kind: 'unreadable', file, reason: `cannot read ${file} (${code(error)}); check its permissions` });
    }
  }
  // Writable? `access` asks the kernel without creating anything (EROFS, EACCES).
  const writeTarget = exists ? memoryDir : nearestExisting(memoryDir);
  if (writeTarget !== undefined && !findings.some((f) => f.file === memoryDir)) {
    try {
      accessSync(writeTarget, constants.W_OK);
    } catch (error) {
      findings.push({
        kind: 'unwritable',
        file: writeTarget,
        reason: `${writeTarget} is not writable (${code(error)}): turns cannot be made durable, so nothing is retained automatically; fix its permissions or mount`,
      });
    }
  }
  findings.push(...foreignOwnership(stateDir, memoryDir));
  let ignored: boolean;
  try {
    // Ignored only by rules that take everything: a committed `!*` there keeps nothing out.
    ignored = exists && lstatSync(path.join(memoryDir, '.gitignore')).isFile() && ignoresEverything(readStateFileSync(path.join(memoryDir, '.gitignore'), 64 * 1024) ?? '');
  } catch {
    ignored = false;
  }
  return { memoryDir, exists, ignored, findings };
};

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/**
 * Another account that owns, or may write in, the state dir or its `memory` directory may rename
 * the files memory writes there (they are 0600, the directory entries are not): it can move the
 * queue journal away and leave a file of its own, readable by it, where the next turn is
 * appended. Such a directory is refused. `{state_dir}` may belong to root (a system checkout);
 * `memory`, which memory creates 0700, must be this account's. Group-writable is left alone: with
 * per-user groups (umask 002) a directory the user made by hand is group-writable and the group is theirs.
 */
const foreignOwnership = (stateDir: string, memoryDir: string): StateDirFinding[] => {
  const uid = process.getuid?.();
  if (uid === undefined) return [];
  const findings: StateDirFinding[] = [];
  const check = (dir: string, owners: readonly number[], writableBits: number, remedy: string): void => {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      return;
    }
    if (!stat.isDirectory()) return;
    if (!owners.includes(stat.uid)) {
      findings.push({ kind: 'unsafe', file: dir, reason: `refusing ${dir}: it belongs to another account (uid ${stat.uid}), which can swap the files memory keeps conversation text in; ${remedy}` });
    } else if ((stat.mode & writableBits) !== 0) {
      findings.push({ kind: 'unsafe', file: dir, reason: `refusing ${dir}: other accounts may write in it (mode ${octal(stat.mode)}) and swap the files memory keeps conversation text in; ${remedy}` });
    }
  };
  check(stateDir, [uid, 0], 0o002, `make it yours and owner-writable only (chmod o-w ${stateDir}), or move it away`);
  check(memoryDir, [uid], 0o002, `make it yours and private (chmod 700 ${memoryDir}), or move it away so memory creates its own`);
  return findings;
};

const nearestExisting = (dir: string): string | undefined => {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      lstatSync(current);
      return current;
    } catch {
      if (path.dirname(current) === current) return undefined;
    }
  }
};
