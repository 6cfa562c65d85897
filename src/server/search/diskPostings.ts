/**
 * A loaded index's postings left in `search-index.bin` and read when a query asks for a term
 * (one pread for its documents, one for its frequencies), the way SQLite reads pages on demand:
 * the page cache holds them, not the process (10 MB of the server's resident memory at 100k
 * memories, ten times that at 1M). Start-up still reads them once, for the file's CRC.
 *
 * The file is held open: a later snapshot renames a new file over it, and this one stays
 * readable (saved files are never written in place) until the search indexes close.
 */
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Counts } from './columns.js';

/** The open saved-index file its banks' postings (and thread names) are read from; closed once with the search indexes. */
export class PostingsFile {
  private closed = false;
  constructor(private readonly handle: FileHandle) {}

  get fd(): number {
    if (this.closed) throw new Error('search index: the saved index file was closed while its postings were still in use');
    return this.handle.fd;
  }

  /** `length` bytes from `position` (a region start-up checked and left here, as a bank's thread names). */
  bytesAt(position: number, length: number): Buffer {
    const out = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd, out, done, length - done, position + done);
      if (read === 0) throw new Error('search index: the saved index file ends before a region it names');
      done += read;
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/**
 * Bytes of recently read postings kept per bank: a query's terms are read again by its later
 * passes and often by the next query (paired against postings in memory, without it p50 was
 * 1-3% slower). A term's run larger than an eighth of this is read into scratch, never kept.
 */
const CACHE_BYTES = 2 * 1024 * 1024;

/** Term postings: views over this reader's scratch (valid until its next read), or a kept copy. */
export interface PostingRun {
  readonly docs: Int32Array<ArrayBufferLike>;
  readonly tfs: Counts;
}

export class DiskPostings {
  private docs = new ArrayBuffer(0);
  private tfs = new ArrayBuffer(0);
  /** Kept runs by their first position, least recently used first. */
  private readonly cache = new Map<number, PostingRun>();
  private cachedBytes = 0;

  /**
   * @param docsAt byte offset of the bank's document column (4 bytes a posting) in the file
   * @param tfsAt byte offset of its text frequencies, `tfWidth` bytes a posting
   * @param length postings in the bank's columns
   */
  constructor(
    private readonly file: PostingsFile,
    private readonly docsAt: number,
    private readonly tfsAt: number,
    private readonly tfWidth: 1 | 2 | 4,
    readonly length: number,
  ) {}

  /** Postings `from` to `to` (CSR positions, as the index's start column gives them). */
  read(from: number, to: number): PostingRun {
    if (from < 0 || to < from || to > this.length) throw new RangeError(`search index: postings ${from}-${to} are outside a column of ${this.length}`);
    const n = to - from;
    const hit = this.cache.get(from);
    if (hit !== undefined) {
      this.cache.delete(from);
      this.cache.set(from, hit);
      return hit;
    }
    const bytes = n * (4 + this.tfWidth);
    if (bytes <= CACHE_BYTES / 8) {
      const docs = new ArrayBuffer(n * 4);
      const tfs = new ArrayBuffer(n * this.tfWidth);
      const run = this.fillRun(docs, tfs, from, n);
      this.cache.set(from, run);
      this.cachedBytes += bytes;
      for (const [at, old] of this.cache) {
        if (this.cachedBytes <= CACHE_BYTES) break;
        this.cache.delete(at);
        this.cachedBytes -= old.docs.byteLength + old.tfs.byteLength;
      }
      return run;
    }
    if (this.docs.byteLength < n * 4) this.docs = new ArrayBuffer(Math.max(n * 4, 2 * this.docs.byteLength));
    if (this.tfs.byteLength < n * this.tfWidth) this.tfs = new ArrayBuffer(Math.max(n * this.tfWidth, 2 * this.tfs.byteLength));
    return this.fillRun(this.docs, this.tfs, from, n);
  }

  private fillRun(docsInto: ArrayBuffer, tfsInto: ArrayBuffer, from: number, n: number): PostingRun {
    this.fill(docsInto, n * 4, this.docsAt + from * 4);
    this.fill(tfsInto, n * this.tfWidth, this.tfsAt + from * this.tfWidth);
    const docs = new Int32Array(docsInto, 0, n);
    const tfs = this.tfWidth === 1 ? new Uint8Array(tfsInto, 0, n) : this.tfWidth === 2 ? new Uint16Array(tfsInto, 0, n) : new Int32Array(tfsInto, 0, n);
    return { docs, tfs };
  }

  private fill(into: ArrayBuffer, bytes: number, position: number): void {
    const target = new Uint8Array(into, 0, bytes);
    let done = 0;
    while (done < bytes) {
      const read = readSync(this.file.fd, target, done, bytes - done, position + done);
      if (read === 0) throw new Error('search index: the saved index file ends before its postings');
      done += read;
    }
  }
}
