/**
 * The session-reader port over pi's JSONL session files on disk.
 *
 * - Scans files and directories (recursively, symlinks never followed) with `lstat`, so a
 *   directory of thousands of files costs one stat each and no read.
 * - Reads in fixed chunks up to the size seen when the read started: a file pi is appending
 *   to yields its complete lines; the torn tail waits for the next run.
 * - Image data is dropped as it is read (only its type and size are kept), so a session full
 *   of screenshots costs no memory for them.
 */
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { FileStamp, FoundFile, ReadOptions, ScanOptions, ScanResult, SessionEntry, SessionFilesPort, SessionRead, Skip } from '../../effects/ports/sessionFiles.js';
import { foreignParserFor, type ForeignLineParser } from './foreignSession.js';
import { sessionLineParser } from './sessionFile.js';
import { errnoCode } from '../../codecs/errno.js';

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

const code = (error: unknown): string => errnoCode(error) ?? 'error';

/** `/a/b/../c/` and `/a/c` are one project: resolved, without a trailing separator. */
export const normaliseCwd = (cwd: string): string => {
  const resolved = path.resolve(cwd);
  return resolved.length > 1 && resolved.endsWith(path.sep) ? resolved.slice(0, -1) : resolved;
};

// Keeps type, size and mime of an image block; its base64 data is never held.
const slimBlock = (block: unknown): unknown => {
  if (typeof block !== 'object' || block === null || !('type' in block) || block.type !== 'image' || !('data' in block) || typeof block.data !== 'string') return block;
  const mimeType = 'mimeType' in block && typeof block.mimeType === 'string' ? block.mimeType : 'unknown';
  return { type: 'image', mimeType, bytes: Math.floor((block.data.length * 3) / 4) };
};

const slimContent = (content: unknown): unknown => (Array.isArray(content) ? content.map(slimBlock) : content);

const slimEntry = (entry: SessionEntry): SessionEntry => {
  const message = entry.message;
  const slimmed: SessionEntry =
    typeof message === 'object' && message !== null && 'content' in message && Array.isArray(message.content) ? { ...entry, message: { ...message, content: slimContent(message.content) } } : entry;
  return entry.content === undefined ? slimmed : { ...slimmed, content: slimContent(entry.content) };
};

const looksBinary = (bytes: Buffer): boolean => bytes.subarray(0, 512).includes(0);

const readSession = async (file: string, options: ReadOptions): Promise<E.Either<Skip, SessionRead>> => {
  const skip = (reason: Skip['reason'], detail: string): E.Either<Skip, SessionRead> => E.left({ path: file, reason, detail });
  let handle: fs.FileHandle;
  try {
    // O_NOFOLLOW: a session path that became a symlink is refused, never followed.
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return code(error) === 'ELOOP' ? skip('symlink', 'symbolic link') : skip(code(error) === 'ENOENT' ? 'no-such-path' : 'unreadable', code(error));
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return skip('not-a-file', 'not a regular file');
    if (stat.size > options.maxBytes) return skip('too-large', `${stat.size} bytes > limit ${options.maxBytes}`);
    const limit = stat.size;
    const pi = sessionLineParser(file, slimEntry);
    // pi's reader until the first line says another agent wrote the file.
    let foreign: ForeignLineParser | undefined;
    const headerOf = (): { id: string; cwd: string | undefined; timestamp: string | undefined; version: number } | undefined => {
      if (foreign !== undefined) return foreign.header === undefined ? undefined : { ...foreign.header, version: 1 };
      const h = pi.header;
      return h === undefined ? undefined : { id: h.id, cwd: h.cwd, timestamp: h.timestamp, version: h.version ?? 1 };
    };
    const otherProject = (): string | undefined => {
      const cwd = headerOf()?.cwd;
      return options.cwd !== undefined && cwd !== undefined && normaliseCwd(cwd) !== normaliseCwd(options.cwd) ? cwd : undefined;
    };
    const buffer = Buffer.allocUnsafe(CHUNK);
    // The unended line's bytes, one copy per chunk, joined once when its newline comes: joining
    // them onto one growing buffer at every chunk copied a long line over and over (a 128 MB
    // line took 25 s, quadratic in its length, with the event loop held up to 0.7 s at a time).
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let position = 0;
    let consumed = 0;
    let first = true;
    while (position < limit) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, limit - position), position);
      if (bytesRead === 0) break;
      // The file's first bytes: what the first read holds.
      if (position === 0 && looksBinary(buffer.subarray(0, bytesRead))) return skip('not-a-session', 'binary content');
      position += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const line = carry.length === 0 ? chunk.toString('utf8', start, nl) : Buffer.concat([...carry, chunk.subarray(start, nl)]).toString('utf8');
        consumed += carryBytes + nl - start + 1;
        carry = [];
        carryBytes = 0;
        start = nl + 1;
        if (first) {
          first = false;
          if (!pi.push(line)) {
            foreign = foreignParserFor(line);
            if (foreign === undefined || !foreign.push(line)) return skip('not-a-session', 'first line is not a session header of pi ({"type":"session","id":...}), Claude Code or Codex');
          }
        } else (foreign ?? pi).push(line);
      }
      // Another project's session is skipped as soon as its header says so, unread.
      const elsewhere = otherProject();
      if (elsewhere !== undefined) return skip('other-project', `recorded in ${elsewhere}`);
      // Copied: the read buffer is reused for the next chunk.
      if (start < bytesRead) {
        carry.push(Buffer.from(chunk.subarray(start)));
        carryBytes += bytesRead - start;
      }
    }
    const header = headerOf();
    if (header === undefined) return skip('empty', carryBytes > 0 ? 'only a partial first line so far' : 'no lines');
    const elsewhere = otherProject();
    if (elsewhere !== undefined) return skip('other-project', `recorded in ${elsewhere}`);
    // A session that names no directory could be any project's: it is never imported into this one.
    if (options.cwd !== undefined && header.cwd === undefined) return skip('no-directory', 'its header and entries record no working directory');
    const lines = foreign ?? pi;
    return E.right({
      path: file,
      ...(foreign === undefined ? {} : { host: foreign.host }),
      sessionId: header.id,
      version: header.version,
      cwd: header.cwd,
      timestamp: header.timestamp,
      entries: lines.entries,
      damaged: lines.damaged,
      pendingTailBytes: carryBytes,
      bytes: consumed,
      stamp: { size: stat.size, mtimeMs: stat.mtimeMs },
    });
  } catch (error) {
    return skip('unreadable', code(error));
  } finally {
    await handle.close();
  }
};

const scan = async (paths: readonly string[], options: ScanOptions): Promise<ScanResult> => {
  const files: FoundFile[] = [];
  const skipped: Skip[] = [];
  const seen = new Set<string>();
  const consider = async (file: string, explicit: boolean): Promise<void> => {
    let stat;
    try {
      stat = await fs.lstat(file);
    } catch (error) {
      skipped.push({ path: file, reason: code(error) === 'ENOENT' ? 'no-such-path' : 'unreadable', detail: code(error) });
      return;
    }
    if (stat.isSymbolicLink()) {
      skipped.push({ path: file, reason: 'symlink', detail: 'symbolic link' });
      return;
    }
    if (stat.isDirectory()) {
      let dir;
      try {
        dir = await fs.opendir(file);
      } catch (error) {
        skipped.push({ path: file, reason: 'unreadable', detail: code(error) });
        return;
      }
      const names: string[] = [];
      for await (const entry of dir) names.push(entry.name);
      // Sorted, so plans and document order are the same on every run.
      for (const name of names.sort()) await consider(path.join(file, name), false);
      return;
    }
    if (!explicit && !file.endsWith('.jsonl')) return;
    if (!stat.isFile()) {
      skipped.push({ path: file, reason: 'not-a-file', detail: 'not a regular file' });
      return;
    }
    const resolved = path.resolve(file);
    if (seen.has(resolved)) return;
    seen.add(resolved);
    if (options.sinceMs !== undefined && stat.mtimeMs < options.sinceMs) {
      skipped.push({ path: file, reason: 'before-since', detail: `last changed ${new Date(stat.mtimeMs).toISOString()}` });
      return;
    }
    if (stat.size > options.maxBytes) {
      skipped.push({ path: file, reason: 'too-large', detail: `${stat.size} bytes > limit ${options.maxBytes}` });
      return;
    }
    files.push({ path: resolved, bytes: stat.size, mtimeMs: stat.mtimeMs });
  };
  for (const p of paths) await consider(p, true);
  return { files, skipped };
};

const stamp = async (file: string): Promise<FileStamp | undefined> => {
  try {
    const stat = await fs.lstat(file);
    return stat.isFile() ? { size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
  } catch {
    // Gone or unreadable: the caller reads the file again, and that read says why.
    return undefined;
  }
};

export const piSessionFiles: SessionFilesPort = {
  scan,
  read: readSession,
  stamp,
  digest: (text) => createHash('sha256').update(text).digest('hex'),
};

/**
 * pi's default session directory for `cwd` (pi-host.md 2.1): `PI_CODING_AGENT_SESSION_DIR`,
 * else `<PI_CODING_AGENT_DIR or ~/.pi/agent>/sessions/--<cwd with / \ : as ->--`.
 */
export const piSessionDir = (cwd: string, env: Readonly<Record<string, string | undefined>>, home: string): string => {
  const custom = env['PI_CODING_AGENT_SESSION_DIR'];
  if (custom !== undefined && custom !== '') return custom;
  const agentDir = env['PI_CODING_AGENT_DIR'] ?? path.join(home, '.pi', 'agent');
  const encoded = normaliseCwd(cwd).replace(/^[/\\]/, '').replace(/[/\\:]/g, '-');
  return path.join(agentDir, 'sessions', `--${encoded}--`);
};
