/**
 * Opening state and config files without trusting what is on disk: a cloned repository can
 * commit `.pi/memory/retain-queue.jsonl -> ~/victim.txt` or `.pi/memory.json -> /dev/zero`.
 *
 * Every open here refuses a symbolic link (lstat first, then `O_NOFOLLOW`, so a link planted
 * between the two is refused by the kernel), refuses a symlinked parent directory, and checks
 * with `fstat` after the open that the file is a regular file (a FIFO or device is never read
 * or written). Reads of config and sidecar files are capped (1 MB by default): a huge file is
 * refused with a clear error, never read unbounded. Files are created 0600 and directories 0700.
 */
import { constants, closeSync, existsSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readSync, readlinkSync, realpathSync, renameSync, rmSync, writeSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errnoCode } from '../../codecs/errno.js';

/** Config files and sidecars are small; anything larger is not ours. */
const MAX_STATE_FILE_BYTES = 1024 * 1024;

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** A state or config file this process refuses to open, with the reason naming the file. */
export class UnsafeFileError extends Error {
  readonly code = 'EUNSAFEFILE';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`refusing ${file}: ${reason}`);
    this.name = 'UnsafeFileError';
  }
}

export const isUnsafeFileError = (error: unknown): error is UnsafeFileError => error instanceof UnsafeFileError;

// O_NOFOLLOW and O_NONBLOCK are POSIX; where the platform lacks them (Windows) they are 0 and
// the lstat checks carry the refusal alone.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO would block an O_RDONLY open until a writer appears: open non-blocking, then fstat refuses it.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

const SYMLINK_ADVICE = 'it is a symbolic link (a cloned repository can plant one); remove it so memory can recreate it as a regular file';

const describeKind = (stat: { isSymbolicLink(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isDirectory(): boolean }): string =>
  stat.isSymbolicLink()
    ? SYMLINK_ADVICE
    : stat.isFIFO()
      ? 'it is a named pipe, not a regular file; remove it'
      : stat.isCharacterDevice() || stat.isBlockDevice()
        ? 'it is a device, not a regular file; remove it'
        : stat.isSocket()
          ? 'it is a socket, not a regular file; remove it'
          : stat.isDirectory()
            ? 'it is a directory, not a regular file'
            : 'it is not a regular file; remove it';

/** Throws when `file` exists as anything but a regular file; returns whether it exists. */
const checkEntrySync = (file: string): boolean => {
  let stat;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  if (!stat.isFile()) throw new UnsafeFileError(file, describeKind(stat));
  return true;
};

/**
 * State dirs (`<project>/.pi`) and their projects, where no symbolic link may be on the way to
 * a file memory writes: a repository can commit `.pi/memory/q -> /` or `.pi/queues -> ../..`,
 * and a configured path through it would write outside the project. `loadConfig` registers
 * every state dir it loads with its project, so every open and every directory created under
 * the project is checked component by component (not only the last directory): from the state
 * dir down in its `memory`, from the project's first directory down anywhere else in it.
 */
const confinedRoots = new Map<string, string>();
/** pi's own agent directory (the user file's): the user's, even when the project is the home directory. */
const userDirs = new Set<string>();

export const confineStateDir = (stateDir: string, projectDir: string = path.dirname(stateDir)): void => {
  confinedRoots.set(path.resolve(stateDir), path.resolve(projectDir));
};

export const trustUserDir = (dir: string): void => {
  userDirs.add(path.resolve(dir));
};

const isWithin = (root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** `root` itself, when given, then every directory from below it down to `absolute`. */
const walkFrom = (root: string, absolute: string, includeRoot: boolean): string[] => {
  const parts = path.relative(root, absolute).split(path.sep).filter((p) => p !== '');
  return [...(includeRoot ? [root] : []), ...parts.map((_, i) => path.join(root, ...parts.slice(0, i + 1)))];
};

/**
 * The directories to check for `dir`: in a confining state dir's `memory` (where memory keeps
 * everything a repository must not redirect), each one from the state dir down; elsewhere in a
 * project, each one from the project's first directory down (the project directory itself is
 * where the person chose to work, link or not); else `dir` alone (a user-chosen path outside
 * every project, or pi's own agent directory when the project is the home directory).
 */
const componentsOf = (dir: string): string[] => {
  const absolute = path.resolve(dir);
  let stateRoot: string | undefined;
  for (const r of confinedRoots.keys()) if (isWithin(path.join(r, 'memory'), absolute) && (stateRoot === undefined || r.length > stateRoot.length)) stateRoot = r;
  if (stateRoot !== undefined) return walkFrom(stateRoot, absolute, true);
  for (const userDir of userDirs) if (isWithin(userDir, absolute)) return [absolute];
  let project: string | undefined;
  for (const p of confinedRoots.values()) if (p !== absolute && isWithin(p, absolute) && (project === undefined || p.length > project.length)) project = p;
  return project === undefined ? [absolute] : walkFrom(project, absolute, false);
};

const linkedDirectory = (file: string, dir: string): UnsafeFileError =>
  new UnsafeFileError(file, `${dir} is a symbolic link (a cloned repository can plant one); memory never writes through a link inside a project: remove the link so memory can recreate the directory, or name a path with no link on the way`);

/**
 * Throws when a directory holding `file` (every one from its state dir down) is a symbolic
 * link or not a directory. A directory that does not exist yet ends the walk.
 */
const checkParentSync = (file: string): void => {
  for (const dir of componentsOf(path.dirname(file))) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) throw linkedDirectory(file, dir);
    if (!stat.isDirectory()) throw new UnsafeFileError(file, `${dir} is not a directory`);
  }
};

export const checkParent = async (file: string): Promise<void> => {
  for (const dir of componentsOf(path.dirname(file))) {
    let stat;
    try {
      stat = await fs.lstat(dir);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) throw linkedDirectory(file, dir);
    if (!stat.isDirectory()) throw new UnsafeFileError(file, `${dir} is not a directory`);
  }
};

/** Throws when `dir` or a directory above it (from its state dir down) is a symbolic link; creates nothing. */
const refuseLinkedDirSync = (dir: string): void => {
  for (const component of componentsOf(dir)) {
    try {
      if (lstatSync(component).isSymbolicLink()) throw linkedDirectory(dir, component);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw error;
    }
  }
};

/**
 * The walk above and the open below are two system calls, and Node has no `openat`: a
 * directory on the way swapped for a link between them (by an account that may rename entries
 * in a directory above it, such as a shared checkout others may write) would be followed, and a
 * file created, appended to or renamed in the directory the link leads to. So on Linux every
 * file is opened, created, renamed and removed through its directory held open: the directory
 * is opened `O_DIRECTORY | O_NOFOLLOW`, `/proc/self/fd/<fd>` must name the real path of the
 * directory above the walk (the person's own, link or not) joined with the checked components,
 * and the file is then reached as `/proc/self/fd/<fd>/<name>`, which the kernel resolves in that
 * very directory whatever is renamed since (an `openat` by path). Where there is no `/proc`
 * (macOS, Windows) the walk's check stands alone.
 */
const PROC_FD = '/proc/self/fd';
let procFd: boolean | undefined;
const hasProcFd = (): boolean => (procFd ??= process.platform === 'linux' && existsSync(PROC_FD));
const DIRECTORY = constants.O_DIRECTORY ?? 0;

const openedElsewhere = (file: string, opened: string): UnsafeFileError =>
  new UnsafeFileError(
    file,
    `its directory was opened at ${opened}: a directory on its way was replaced by a symbolic link while memory opened it (someone else may rename entries in a directory above it: make the project directory writable by you only); memory read and wrote nothing there`,
  );

/** Opens `file`'s directory and checks it is the one the walk checked; returns its fd, or undefined without /proc. */
const openCheckedDir = (file: string): number | undefined => {
  if (!hasProcFd()) return undefined;
  const dir = path.dirname(path.resolve(file));
  let dfd: number;
  try {
    dfd = openSync(dir, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw linkedDirectory(file, dir);
    throw error;
  }
  try {
    const first = componentsOf(dir)[0] ?? dir;
    const above = path.dirname(first);
    const expected = path.join(realpathSync.native(above), path.relative(above, dir));
    const opened = readlinkSync(`${PROC_FD}/${dfd}`);
    if (opened !== expected) throw openedElsewhere(file, opened);
  } catch (error) {
    closeSync(dfd);
    throw error;
  }
  return dfd;
};

/** Runs `use` with a path to `file` that resolves in its checked directory (see above); `file` itself without /proc. */
export const inCheckedDirSync = <T>(file: string, use: (at: string) => T): T => {
  const dfd = openCheckedDir(file);
  if (dfd === undefined) return use(file);
  try {
    return use(path.join(PROC_FD, String(dfd), path.basename(file)));
  } finally {
    closeSync(dfd);
  }
};

export const inCheckedDir = async <T>(file: string, use: (at: string) => Promise<T>): Promise<T> => {
  const dfd = openCheckedDir(file);
  if (dfd === undefined) return use(file);
  try {
    return await use(path.join(PROC_FD, String(dfd), path.basename(file)));
  } finally {
    closeSync(dfd);
  }
};

/**
 * Runs `use` with a function that names an entry of `dir` as a path resolving in `dir` held
 * open and checked (the walk first, for its clearer refusal, then `inCheckedDirSync`): for the
 * operations that take two names in one directory (a lock's draft linked to its name, a file
 * renamed aside), and for any create, remove or touch by name there.
 */
export const inCheckedDirEntriesSync = <T>(dir: string, use: (entry: (name: string) => string) => T): T => {
  const probe = path.join(dir, '.probe');
  checkParentSync(probe);
  return inCheckedDirSync(probe, (at) => use((name) => path.join(path.dirname(at), name)));
};

/** `lstat` checks of `file` and its directory, without opening: for status and doctor. */
export const checkStateFileSync = (file: string): boolean => {
  checkParentSync(file);
  return checkEntrySync(file);
};

/** Translates the kernel's refusal of a link under O_NOFOLLOW into the same clear error. */
const refusal = (file: string, error: unknown): unknown => (errnoCode(error) === 'ELOOP' ? new UnsafeFileError(file, SYMLINK_ADVICE) : error);

export type OpenPurpose = 'read' | 'append' | 'readWrite';

const flagsOf = (purpose: OpenPurpose): number => {
  switch (purpose) {
    case 'read':
      return constants.O_RDONLY | NOFOLLOW | NONBLOCK;
    case 'append':
      return constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK;
    case 'readWrite':
      return constants.O_RDWR | NOFOLLOW | NONBLOCK;
  }
};

/**
 * Opens `file` for `purpose` (append creates it 0600). Rejects with `UnsafeFileError` for a
 * symlink, a symlinked directory or a non-regular file; ENOENT passes through for reads.
 */
export const openStateFile = async (file: string, purpose: OpenPurpose): Promise<fs.FileHandle> => {
  await checkParent(file);
  let handle: fs.FileHandle;
  try {
    handle = await inCheckedDir(file, (at) => fs.open(at, flagsOf(purpose), FILE_MODE));
  } catch (error) {
    throw refusal(file, error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnsafeFileError(file, describeKind(stat));
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
};

/** The synchronous twin of `openStateFile`, for the synchronous hand-off path; returns an fd. */
export const openStateFileSync = (file: string, purpose: OpenPurpose): number => {
  checkParentSync(file);
  let fd: number;
  try {
    fd = inCheckedDirSync(file, (at) => openSync(at, flagsOf(purpose), FILE_MODE));
  } catch (error) {
    throw refusal(file, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafeFileError(file, describeKind(stat));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
};

const tooLarge = (file: string, max: number): UnsafeFileError =>
  new UnsafeFileError(file, `it is larger than ${Math.round(max / 1024)} KB, more than this file ever holds; it was not read. Move it aside or delete it`);

/**
 * Reads at most `max` bytes of `file` as UTF-8; `undefined` when it does not exist. A file
 * larger than `max` is refused without reading more than `max + 1` bytes.
 */
export const readStateFile = async (file: string, max = MAX_STATE_FILE_BYTES): Promise<string | undefined> => {
  let handle: fs.FileHandle;
  try {
    handle = await openStateFile(file, 'read');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size > max) throw tooLarge(file, max);
    const buffer = Buffer.alloc(Math.min(size, max) + 1);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    // It grew past the cap between fstat and read.
    if (read > max) throw tooLarge(file, max);
    return buffer.toString('utf8', 0, read);
  } finally {
    await handle.close();
  }
};

export const readStateFileSync = (file: string, max = MAX_STATE_FILE_BYTES): string | undefined => {
  let fd: number;
  try {
    fd = openStateFileSync(file, 'read');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = fstatSync(fd);
    if (size > max) throw tooLarge(file, max);
    const buffer = Buffer.alloc(Math.min(size, max) + 1);
    let read = 0;
    while (read < buffer.length) {
      const bytesRead = readSync(fd, buffer, read, buffer.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    if (read > max) throw tooLarge(file, max);
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
};

/** What `{state_dir}/memory/.gitignore` holds: the queue journal and traces carry conversation text. */
const MEMORY_GITIGNORE = '# Written by agent-memory: conversation text, cursors and traces live here; never commit them.\n*\n';

/** The `memory` directory of the state dir confining `dir`, when `dir` is it or inside it. */
const memoryDirOf = (dir: string): string | undefined => {
  const components = componentsOf(dir);
  const root = components[0];
  const memoryDir = components[1];
  return root !== undefined && confinedRoots.has(root) && memoryDir === path.join(root, 'memory') ? memoryDir : undefined;
};

/** Whether an ignore file's rules are exactly `*` (comments and blank lines aside): everything in the directory is ignored. */
export const ignoresEverything = (text: string): boolean => {
  const rules = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return rules.length === 1 && rules[0] === '*';
};

/**
 * Puts the ignore file in `{state_dir}/memory` (exclusive create, never through a link). One
 * that is there but does not ignore everything (a repository can commit `!*` there, so the
 * next `git add -A` takes the conversation) is replaced, by rename, never written through.
 */
const ensureGitignoreSync = (dir: string): void => {
  const memoryDir = memoryDirOf(dir);
  if (memoryDir === undefined) return;
  const file = path.join(memoryDir, '.gitignore');
  try {
    inCheckedDirSync(file, (at) => {
      const fd = openSync(at, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, FILE_MODE);
      try {
        writeAllSync(fd, Buffer.from(MEMORY_GITIGNORE));
      } finally {
        closeSync(fd);
      }
    });
    return;
  } catch {
    // Already there: kept when it ignores everything (ours, or the user's own `*`).
  }
  try {
    if (ignoresEverything(readStateFileSync(file, 64 * 1024) ?? '')) return;
  } catch {
    // A link, a device or too large: replaced below (the rename replaces the entry, not its target).
  }
  try {
    writePrivateFileSync(file, MEMORY_GITIGNORE, { durable: false });
  } catch {
    // Anything else must not stop memory; the doctor says whether git is kept out.
  }
};

/**
 * `mkdir -p` one level at a time through the directory above held open (Linux, `/proc`): each
 * missing directory is made in the one opened before it, and opened `O_NOFOLLOW` before the next
 * is made in it, so a directory on the way swapped for a link mid-way is refused and nothing is
 * created where it leads (a `mkdir -p` by path created empty directories there). The directory
 * above the checked ones is the person's own and is made by path. False without `/proc`: the
 * caller makes the directory by path after the walk's check, as before.
 */
const mkdirHeldSync = (dir: string): boolean => {
  if (!hasProcFd()) return false;
  const components = componentsOf(dir);
  const above = path.dirname(components[0] ?? path.resolve(dir));
  mkdirSync(above, { recursive: true, mode: DIR_MODE });
  let fd = openSync(above, constants.O_RDONLY | DIRECTORY);
  try {
    for (const component of components) {
      const at = path.join(PROC_FD, String(fd), path.basename(component));
      try {
        mkdirSync(at, { mode: DIR_MODE });
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error;
      }
      let next: number;
      try {
        next = openSync(at, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
      } catch (error) {
        // A file in the way stays ENOTDIR, as the recursive mkdir by path reported it.
        if (errnoCode(error) === 'ELOOP') throw linkedDirectory(dir, component);
        throw error;
      }
      closeSync(fd);
      fd = next;
    }
  } finally {
    closeSync(fd);
  }
  return true;
};

/**
 * Creates `dir` (and missing parents) owner-only; refuses when it or any directory from its
 * state dir down is a symbolic link (checked before the create, so nothing is created through
 * a link, and after it). A state dir's `memory` directory gets its `.gitignore` at once.
 */
export const ensurePrivateDirSync = (dir: string): void => {
  refuseLinkedDirSync(dir);
  if (!mkdirHeldSync(dir)) mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) throw new UnsafeFileError(dir, 'the directory is a symbolic link (a cloned repository can plant one); remove the link so memory can recreate it');
  if (!stat.isDirectory()) throw new UnsafeFileError(dir, 'it is not a directory');
  checkParentSync(path.join(dir, 'x'));
  ensureGitignoreSync(dir);
};

export const ensurePrivateDir = async (dir: string): Promise<void> => {
  refuseLinkedDirSync(dir);
  if (!mkdirHeldSync(dir)) await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
  const stat = await fs.lstat(dir);
  if (stat.isSymbolicLink()) throw new UnsafeFileError(dir, 'the directory is a symbolic link (a cloned repository can plant one); remove the link so memory can recreate it');
  if (!stat.isDirectory()) throw new UnsafeFileError(dir, 'it is not a directory');
  await checkParent(path.join(dir, 'x'));
  ensureGitignoreSync(dir);
};

/**
 * Writes all of `data` at the file's current offset: a full disk can take part of a write
 * without an error, and only the next write says ENOSPC, so a short count is written again.
 */
export const writeAllSync = (fd: number, data: Buffer): void => {
  let written = 0;
  while (written < data.length) {
    const n = writeSync(fd, data, written, data.length - written);
    if (n <= 0) throw Object.assign(new Error(`short write (${written} of ${data.length} bytes)`), { code: 'EIO' });
    written += n;
  }
};

/**
 * Replaces `file` with `data` synchronously: a new 0600 temp file (exclusive create, so a
 * planted name is never followed), then a rename, which replaces a link rather than its target.
 */
/** A unique name beside `file` for the temp copy of an atomic replace. */
export const tempNameFor = (file: string): string => `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;

export const writePrivateFileSync = (file: string, data: string, o: { readonly durable?: boolean } = {}): void => {
  checkParentSync(file);
  // Created, written and renamed in the directory the walk checked (`inCheckedDirSync`).
  inCheckedDirSync(file, (at) => {
    const temp = tempNameFor(at);
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, FILE_MODE);
    try {
      // All of it, on disk, before the rename: a torn or empty file never replaces a good one.
      writeAllSync(fd, Buffer.from(data));
      // `durable: false` for a file whose loss in a power cut costs only a re-offer (the retain cursor).
      if (o.durable !== false) fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
    closeSync(fd);
    try {
      renameSync(temp, at);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  });
};
