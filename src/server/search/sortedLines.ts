/**
 * A text file of lines sorted by their first field (bytes up to the first space), searched on
 * disk: opening it keeps one key and offset per block of about a kilobyte, and a lookup reads
 * the one block that can hold the key (a pread) and walks its lines. WordNet's index files
 * (6.3 MB) were held whole for their binary search; these samples take some 0.3 MB, and the
 * page cache (not the process's resident memory) holds the bytes read.
 *
 * Keys compare as bytes, with each character of a key taken as latin1 (its low byte), as the
 * files are ASCII and `Buffer.from(key, 'latin1')` was the lookup's key before. Lines that start
 * with a space (WordNet's licence header) sort before every key and are skipped.
 *
 * Opening also keeps a Bloom filter of every line's key (16-32 bits a key: 0.37 MB for
 * WordNet's four files): a key no line has is answered without the read. A recall looks up each
 * new query word in every part of speech and in the word-neighbour table, and most are in none
 * (names, code words, the bench's made-up words): a `pread` and a block walked each time.
 */
import { fstatSync, openSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { FNV_OFFSET, FNV_PRIME } from '../idHash.js';
import { HashFilter } from './hashFilter.js';

/** Bytes between two samples; a lookup reads one such block plus the rest of its last line. */
const BLOCK = 1024;
/**
 * Lookups remembered per file (found lines and misses): a recall looks up the same few words'
 * base forms in every part of speech, and the next recall many of them again (14 reads a recall
 * at 100k memories, each a `pread`). Emptied when full, as the other word memos are.
 */
const MEMO_LINES = 4096;
const SPACE = 0x20;
const NEWLINE = 0x0a;
/** Filter bits per key (rounded up to a power of two in all); two probes. */
const FILTER_BITS_PER_KEY = 16;

/** FNV-1a of a key's bytes as latin1 gives them (each character's low byte), as a line's key is hashed. */
const keyHash = (key: string): number => {
  let h = FNV_OFFSET;
  for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ (key.charCodeAt(i) & 0xff), FNV_PRIME);
  return h;
};

/** A Bloom filter of the lines' key hashes: false means no line has the key. */
const keyFilter = (hashes: Int32Array): HashFilter => {
  const filter = new HashFilter(hashes.length, FILTER_BITS_PER_KEY, 64);
  for (const h of hashes) filter.addHash(h);
  return filter;
};

/** What `hashKeysOfLines` reads with, and the hash's constants: passed in, so that it names nothing outside itself. */
type ReadAt = (fd: number, buffer: Buffer, offset: number, length: number, position: number) => number;
interface KeyHashConstants {
  readonly space: number;
  readonly offset: number;
  readonly prime: number;
}

/**
 * The hash of every line's key (its bytes up to the first space or newline; a line that starts
 * with a space has none), read through `window` a window at a time. Each window is walked as a
 * latin1 string: its `indexOf` is V8's own, where a `Buffer`'s crosses into C++ each call (a
 * quarter of a million lines in WordNet's files and the neighbour table).
 *
 * Self-contained (only its parameters and globals): the worker runs this function's own source
 * text (`keyHashesOnWorker`), so the thread and the worker hash with one loop.
 */
const hashKeysOfLines = (read: ReadAt, fd: number, size: number, window: Buffer, k: KeyHashConstants): Int32Array => {
  const { space, offset, prime } = k;
  let hashes = new Int32Array(1024);
  let count = 0;
  for (let at = 0; at < size; ) {
    const length = read(fd, window, 0, Math.min(window.length, size - at), at);
    if (length <= 0) break;
    const text = window.toString('latin1', 0, length);
    // The window's last whole line ends at its last newline; the rest is read again with the
    // next window (a line longer than a window is read to its end by a window of its own).
    const lastNewline = text.lastIndexOf('\n');
    const whole = lastNewline < 0 || at + length >= size ? length : lastNewline + 1;
    for (let i = 0; i < whole; ) {
      let end = text.indexOf('\n', i);
      if (end < 0 || end >= whole) end = whole;
      if (text.charCodeAt(i) !== space) {
        let h = offset;
        for (let j = i; j < end; j += 1) {
          const c = text.charCodeAt(j);
          if (c === space) break;
          h = Math.imul(h ^ c, prime);
        }
        if (count === hashes.length) {
          const grown = new Int32Array(hashes.length * 2);
          grown.set(hashes);
          hashes = grown;
        }
        hashes[count] = h;
        count += 1;
      }
      i = end + 1;
    }
    at += whole;
  }
  return hashes.subarray(0, count);
};

const KEY_HASH_CONSTANTS: KeyHashConstants = { space: SPACE, offset: FNV_OFFSET, prime: FNV_PRIME };

export const keyHashes = (fd: number, size: number, window: Buffer): Int32Array => hashKeysOfLines(readSync, fd, size, window, KEY_HASH_CONSTANTS);

/**
 * The worker's code (the bundle has no file to point a worker at): `hashKeysOfLines` from its
 * own source over each path it is given, posting one `Int32Array` a path (or null for one it
 * could not read). test/server/search/sortedLines.test.ts checks it against the thread's.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { openSync, fstatSync, readSync, closeSync } = require('node:fs');
const window = Buffer.alloc(64 * 1024);
const hashKeysOfLines = ${hashKeysOfLines.toString()};
const constants = ${JSON.stringify(KEY_HASH_CONSTANTS)};
const hashesOf = (fd, size) => hashKeysOfLines(readSync, fd, size, window, constants).slice();
const out = workerData.paths.map((path) => {
  try {
    const fd = openSync(path, 'r');
    try {
      return hashesOf(fd, fstatSync(fd).size);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
});
parentPort.postMessage(out, out.flatMap((h) => (h === null ? [] : [h.buffer])));
`;

/**
 * Each path's key hashes, made on a worker thread (null for a path it could not read); rejects
 * if the worker fails. The worker does not keep the process alive.
 */
export const keyHashesOnWorker = (paths: readonly string[]): Promise<(Int32Array | null)[]> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths } });
    worker.unref();
    let answered = false;
    worker.once('message', (hashes: (Int32Array | null)[]) => {
      answered = true;
      resolve(hashes);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`sortedLines: the key-hash worker stopped (exit ${code})`));
    });
  });

/** The key as the bytes a latin1 encoding gives: a character above U+00FF keeps its low byte. */
const asLatin1 = (key: string): string => (/[\u0100-\uffff]/.test(key) ? Buffer.from(key, 'latin1').toString('latin1') : key);

/** Compares the first field of the line at `start` with `key` (latin1), like strcmp. */
const compareAt = (bytes: Buffer, start: number, end: number, key: string): number => {
  for (let i = 0; ; i += 1) {
    const a = start + i < end ? (bytes[start + i] ?? SPACE) : SPACE;
    const over = a === SPACE || a === NEWLINE;
    if (i === key.length) return over ? 0 : 1;
    if (over) return -1;
    const b = key.charCodeAt(i);
    if (a !== b) return a - b;
  }
};

export class SortedLineFile {
  /** Where each block's first line starts, and that line's key; `starts` has one more entry: the file's size. */
  private constructor(
    private readonly fd: number,
    private readonly starts: Float64Array,
    private readonly keys: readonly string[],
    private readonly buffer: Buffer,
    private readonly memoLines: number,
    private filter: HashFilter | undefined,
  ) {}

  /** Lines found by key, and keys not found (null). */
  private readonly memo = new Map<string, string | null>();

  /** Opens the file, samples a key every block and builds the keys' filter (reads the file twice, a window at a time). */
  static open(path: string, memoLines = MEMO_LINES): SortedLineFile {
    return SortedLineFile.sampled(path, memoLines, true);
  }

  /**
   * Opens the files and samples their keys here, their filters made from key hashes a worker
   * thread reads (`keyHashesOnWorker`): hashing every line's key is most of an open's CPU (some
   * 0.1 s for WordNet's files and the neighbour table, on a start's main thread before). Until a
   * file's filter arrives its lookups search on disk, so every answer is the same, only a miss
   * costs a read; a file the worker could not read keeps searching. `ready` settles when the
   * filters are in (never rejects).
   */
  static openAll(paths: readonly string[], memoLines = MEMO_LINES): { readonly files: SortedLineFile[]; readonly ready: Promise<void> } {
    const files = paths.map((path) => SortedLineFile.sampled(path, memoLines, false));
    const ready = keyHashesOnWorker(paths).then(
      (all) => {
        all.forEach((hashes, i) => {
          const file = files[i];
          if (hashes !== null && file !== undefined && file.filter === undefined) file.filter = keyFilter(hashes);
        });
      },
      () => undefined,
    );
    return { files, ready };
  }

  /** Whether the keys' filter is in (misses are then answered without a read). */
  get filtered(): boolean {
    return this.filter !== undefined;
  }

  private static sampled(path: string, memoLines: number, withFilter: boolean): SortedLineFile {
    const fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const window = Buffer.alloc(64 * 1024);
    let windowAt = 0;
    let windowLength = 0;
    const byteAt = (at: number): number => {
      if (at < windowAt || at >= windowAt + windowLength) {
        windowAt = at;
        windowLength = readSync(fd, window, 0, window.length, at);
      }
      return window[at - windowAt] ?? NEWLINE;
    };
    /** Where the line after the one holding byte `at` starts (size if none). */
    const nextLine = (at: number): number => {
      let i = at;
      while (i < size && byteAt(i) !== NEWLINE) i += 1;
      return i + 1;
    };
    const starts: number[] = [];
    const keys: string[] = [];
    let longest = 0;
    for (let p = 0; p < size; p += BLOCK) {
      let start = p === 0 ? 0 : nextLine(p - 1);
      while (start < size && byteAt(start) === SPACE) start = nextLine(start);
      if (start >= size || start === starts[starts.length - 1]) continue;
      let end = start;
      while (end < size && byteAt(end) !== SPACE && byteAt(end) !== NEWLINE) end += 1;
      let key = '';
      for (let i = start; i < end; i += 1) key += String.fromCharCode(byteAt(i));
      const previous = starts[starts.length - 1];
      if (previous !== undefined) longest = Math.max(longest, start - previous);
      starts.push(start);
      keys.push(key);
    }
    const last = starts[starts.length - 1];
    if (last !== undefined) longest = Math.max(longest, size - last);
    starts.push(size);
    const filter = withFilter ? keyFilter(keyHashes(fd, size, window)) : undefined;
    return new SortedLineFile(fd, Float64Array.from(starts), keys, Buffer.alloc(longest), memoLines, filter);
  }

  /** The line (without its newline) whose first field is `key`, or undefined. */
  line(key: string): string | undefined {
    const known = this.memo.get(key);
    if (known !== undefined) return known ?? undefined;
    const found = this.filter === undefined || this.filter.mayHave(keyHash(key)) ? this.search(key) : undefined;
    if (this.memo.size >= this.memoLines) this.memo.clear();
    this.memo.set(key, found ?? null);
    return found;
  }

  /** `line` on disk: the block that can hold the key, read and walked. */
  private search(key: string): string | undefined {
    const k = asLatin1(key);
    // The last block whose first key is at most k.
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.keys[mid] ?? '') <= k) lo = mid + 1;
      else hi = mid;
    }
    const block = lo - 1;
    if (block < 0) return undefined;
    const from = this.starts[block] ?? 0;
    const to = this.starts[block + 1] ?? from;
    const length = readSync(this.fd, this.buffer, 0, to - from, from);
    for (let at = 0; at < length; ) {
      const end = this.buffer.indexOf(NEWLINE, at);
      const lineEnd = end < 0 || end >= length ? length : end;
      const c = compareAt(this.buffer, at, lineEnd, k);
      if (c === 0) return this.buffer.toString('latin1', at, lineEnd);
      if (c > 0) return undefined;
      at = lineEnd + 1;
    }
    return undefined;
  }
}
