/**
 * The saved search index, `search-index.bin` in the data dir: every bank's sealed FieldIndex
 * (fieldIndex.ts `SealedIndex`) as raw little-endian arrays, so start-up takes them as typed
 * array views over the file's bytes instead of analysing every memory again. Written beside
 * each snapshot (temp file, fsync, rename, directory fsync: a crash leaves the old file or the
 * new one) and tagged with the log position it reflects and the analyzer's fingerprint.
 * Reading answers why a file cannot be used (damaged, another format or analyzer); the caller
 * then rebuilds from the store, which stays the only source of truth.
 *
 * Layout: 8 bytes magic, u32 header length, u32 CRC-32 of everything after these 16 bytes,
 * the header (JSON: position, fingerprint, per bank its strings and where each array lies),
 * then the arrays, each starting on an 8-byte boundary. Since format 3 the count and term-id
 * columns are as narrow as their values (1, 2 or 4 bytes, named in the header beside them).
 * Since format 4 the document ids are not in the header but in a region after the arrays (the
 * header's `tail` says where it starts), read apart from the arrays and dropped once the ids
 * are matched to the store's (storedIds.ts). Since format 5 each document's kind (its fact
 * type and state, fieldIndex.ts `kindOf`) is a column; an older file loads with every kind
 * unknown, and its next save writes them.
 */
import { open } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { SealedIndex } from './fieldIndex.js';
import type { Counts } from './columns.js';
import { StoredIds } from './storedIds.js';
import { DiskPostings, PostingsFile } from './diskPostings.js';
import { replaceFileDurably } from '../store/replaceFile.js';
import { READ_CHUNK } from '../store/chunkedRead.js';
import { errnoCode } from '../../codecs/errno.js';
import { isOneOf, isRecord } from '../../codecs/codecs.js';

export const INDEX_FILE = 'search-index.bin';
const MAGIC = Buffer.from('AMSIDX01', 'latin1');
/**
 * 5: a kind per document (`kinds`); 4: document ids in their own region after the arrays; 3: count and term-id columns in 1, 2 or
 * 4 bytes; 2: thread names as their own JSON region among the arrays; 1: thread names in the
 * header. 1 to 4 are still read (1 to 3: ids in the header; 1 and 2: 4-byte columns; 1 to 4: no
 * kinds).
 */
const FORMAT = 5;
const PREFIX = 16;

const INT32 = [
  'textDocs',
  'liveDocs',
  'postStart',
  'postDocs',
  'ctxStart',
  'ctxDocs',
  'entStart',
  'entDocs',
  'lengths',
  'threadOf',
  'threadHead',
  'threadTail',
  'prev',
  'next',
  'docTermStart',
  'docTextTerms',
  'speakerOf',
] as const;
const FLOAT64 = ['orders'] as const;
const UINT8 = ['derived', 'kinds', 'ownKind', 'addressedKind'] as const;
/** Columns of 1, 2 or 4 bytes a value (`Counts`): the width is the third number of their place. */
const COUNTS = ['postTfs', 'ctxTfs', 'entTfs', 'docTermIds'] as const;
type ArrayName = (typeof INT32)[number] | (typeof FLOAT64)[number] | (typeof UINT8)[number] | (typeof COUNTS)[number];
const ARRAY_NAMES: readonly ArrayName[] = [...INT32, ...FLOAT64, ...UINT8, ...COUNTS];
/** Where an array lies: byte offset from the file's start, element count, and (COUNTS, format 3) bytes per element. */
type Place = readonly [number, number] | readonly [number, number, number];

interface BankHeader {
  readonly bankId: string;
  readonly terms: readonly string[];
  /** Formats 1-3: the document ids themselves. */
  readonly ids?: readonly string[];
  /** Format 4: byte offset (in the file), length and count of the ids' region in the tail. */
  readonly idsAt?: readonly [number, number, number];
  /** Format 1: the thread names themselves. */
  readonly threadNames?: readonly string[];
  /** Format 2: byte offset and length of the thread names' JSON array, read when first needed. */
  readonly threadNamesAt?: readonly [number, number];
  readonly speakerNames: readonly string[];
  readonly ownSome: readonly (readonly [number, string])[];
  readonly addressedSome: readonly (readonly [number, string])[];
  readonly statCount: number;
  readonly statLength: readonly number[];
  readonly arrays: Record<ArrayName, Place>;
}

interface Header {
  readonly format: number;
  /** Format 4: where the ids' regions start (the end of the arrays); the file's end before. */
  readonly tail?: number;
  readonly nextSeq: number;
  readonly fingerprint: string;
  readonly banks: readonly BankHeader[];
}

export interface SavedIndexes {
  /** The log position the indexes reflect: every entry below it, nothing after. */
  readonly nextSeq: number;
  readonly banks: ReadonlyMap<string, SealedIndex>;
  /** The file the banks' postings are read from (readIndexFile), to close with the indexes that use them. */
  readonly postingsFile?: PostingsFile;
}

const align8 = (n: number): number => (n + 7) & ~7;

const shifted = (arrays: Record<ArrayName, Place>, shift: number): Record<ArrayName, Place> => {
  const out = { ...arrays };
  for (const name of ARRAY_NAMES) {
    const [offset, ...rest] = arrays[name];
    out[name] = [offset + shift, ...rest];
  }
  return out;
};

/** The file's bytes for `banks` at log position `nextSeq`. */
export const encodeIndexFile = (nextSeq: number, fingerprint: string, banks: ReadonlyMap<string, SealedIndex>): Buffer => {
  let offset = 0;
  const placed: { bank: BankHeader; sealed: SealedIndex; names: Buffer; idBytes: Buffer; idCount: number }[] = [];
  // Offsets are first counted from the end of the header, then shifted once its length is known.
  for (const [bankId, sealed] of banks) {
    const arrays = {} as Record<ArrayName, Place>;
    for (const name of ARRAY_NAMES) {
      const a = sealed[name];
      arrays[name] = isOneOf(COUNTS, name) ? [offset, a.length, a.BYTES_PER_ELEMENT] : [offset, a.length];
      offset = align8(offset + a.byteLength);
    }
    const { terms, ids, threadNames, speakerNames, ownSome, addressedSome, statCount, statLength } = sealed;
    const names = Buffer.from(JSON.stringify(typeof threadNames === 'function' ? threadNames() : threadNames), 'utf8');
    const threadNamesAt = [offset, names.length] as const;
    offset = align8(offset + names.length);
    const idList = ids instanceof StoredIds ? ids.resolve(undefined) : ids;
    placed.push({ bank: { bankId, terms, threadNamesAt, speakerNames, ownSome, addressedSome, statCount, statLength, arrays }, sealed, names, idBytes: StoredIds.encode(idList), idCount: idList.length });
  }
  // The ids' regions last, where the reader keeps them out of the arrays' buffer.
  const tail = offset;
  for (const p of placed) {
    p.bank = { ...p.bank, idsAt: [offset, p.idBytes.length, p.idCount] };
    offset += p.idBytes.length;
  }
  const draft = (shift: number): Buffer =>
    Buffer.from(
      JSON.stringify({
        format: FORMAT,
        tail: tail + shift,
        nextSeq,
        fingerprint,
        banks: placed.map(({ bank }) => ({
          ...bank,
          arrays: shifted(bank.arrays, shift),
          ...(bank.threadNamesAt === undefined ? {} : { threadNamesAt: [bank.threadNamesAt[0] + shift, bank.threadNamesAt[1]] }),
          ...(bank.idsAt === undefined ? {} : { idsAt: [bank.idsAt[0] + shift, bank.idsAt[1], bank.idsAt[2]] }),
        })),
      } satisfies Header),
      'utf8',
    );
  // The shift changes the header's length only by digits: settle it in a few rounds.
  let shift = align8(PREFIX + draft(0).length);
  let header = draft(shift);
  while (align8(PREFIX + header.length) !== shift) {
    shift = align8(PREFIX + header.length);
    header = draft(shift);
  }
  const out = Buffer.alloc(shift + offset);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(header.length, 8);
  header.copy(out, PREFIX);
  for (const { bank, sealed, names, idBytes } of placed) {
    for (const name of ARRAY_NAMES) {
      const a = sealed[name];
      out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), bank.arrays[name][0] + shift);
    }
    if (bank.threadNamesAt !== undefined) names.copy(out, bank.threadNamesAt[0] + shift);
    if (bank.idsAt !== undefined) idBytes.copy(out, bank.idsAt[0] + shift);
  }
  out.writeUInt32LE(crc32(out.subarray(PREFIX)), 12);
  return out;
};

export type ReadIndexFile = { readonly ok: true; readonly saved: SavedIndexes } | { readonly ok: false; readonly reason: string };

const isStringList = (u: unknown): u is string[] => Array.isArray(u) && u.every((n) => typeof n === 'string');

/**
 * A bank's thread names: the header's list (format 1), or a function that parses their region
 * of `body` (format 2; `start` is the body's offset in the file). The region was covered by the
 * file's CRC; a parse that fails later throws, as a damaged column read would.
 */
const threadNamesOf = (bank: BankHeader, body: Uint8Array, local: (offset: number) => number, disk: { file: PostingsFile; end: number } | undefined): readonly string[] | (() => readonly string[]) => {
  if (bank.threadNames !== undefined) return bank.threadNames;
  const at = bank.threadNamesAt;
  if (at === undefined) throw new Error('thread names missing');
  const [offset, length] = at;
  const from = local(offset);
  // Left in the file by readParts (checked by its CRC there): read from it when first needed.
  const onDisk = from < 0 && disk !== undefined;
  if (onDisk ? offset + length > disk.end : from < 0 || from + length > body.length) throw new Error('thread names out of bounds');
  const region = onDisk ? undefined : body.subarray(from, from + length);
  return () => {
    const bytes = region === undefined ? disk?.file.bytesAt(offset, length) : Buffer.from(region.buffer, region.byteOffset, region.byteLength);
    if (bytes === undefined) throw new Error('search index: thread names missing');
    const names: unknown = JSON.parse(bytes.toString('utf8'));
    if (!isStringList(names)) throw new Error('search index: thread names are not a list of strings');
    return names;
  };
};

/** Where the arrays start: the first 8-byte boundary after the header. */
const arraysStart = (headerLength: number): number => align8(PREFIX + headerLength);

/** Decodes the file's bytes; the arrays are views over `bytes` (copied once only if misaligned). */
export const decodeIndexFile = (bytes: Uint8Array, fingerprint: string): ReadIndexFile => {
  if (endianness() !== 'LE') return { ok: false, reason: 'saved indexes are little-endian' };
  if (bytes.length < PREFIX || !Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(MAGIC)) return { ok: false, reason: 'not a saved index' };
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.readUInt32LE(8);
  const start = Math.min(arraysStart(headerLength), view.length);
  const head = view.subarray(0, start);
  const tail = Math.max(start, Math.min(tailOf(head), view.length));
  const crc = crc32(view.subarray(tail), crc32(view.subarray(start, tail), crc32(head.subarray(PREFIX))));
  return decodeParts(head, view.subarray(start, tail), view.toString('latin1', tail), crc, fingerprint, undefined);
};

/** Where the ids' regions start (format 4), read from the header; the file's end if it names none. */
const tailOf = (head: Buffer): number => {
  try {
    const header: unknown = JSON.parse(head.subarray(PREFIX, PREFIX + head.readUInt32LE(8)).toString('utf8'));
    return isRecord(header) && typeof header['tail'] === 'number' && Number.isInteger(header['tail']) ? header['tail'] : Number.POSITIVE_INFINITY;
  } catch {
    // decodeParts says why the header cannot be read.
    return Number.POSITIVE_INFINITY;
  }
};

/** What readParts left out of the arrays' buffer: the postings columns and thread names, read from the open file instead. */
interface LeftOnDisk {
  readonly file: PostingsFile;
  /** Byte ranges of the file not in `body` (each a postings column or thread names, with its padding), in file order. */
  readonly skipped: readonly (readonly [number, number])[];
}

/**
 * Decodes the file from its three parts: `head` (prefix, header and the padding after it),
 * `body` (the arrays, from arraysStart on) and `tail` (format 4: the ids' regions, from the
 * header's `tail` on, as latin1 characters: storedIds.ts). `crc` is the file's CRC over the
 * head after the prefix, the whole arrays' part and the tail, taken while reading. The arrays
 * are views over `body` only, so a loaded index keeps neither the header's bytes nor the ids'
 * (once matched to the store's strings). With `disk`, `body` lacks the postings columns and
 * thread names: they are read from the file when a query asks for a term, and when a write or a
 * seal first needs the names.
 */
const decodeParts = (head: Buffer, body: Uint8Array, tail: string, crc: number, fingerprint: string, disk: LeftOnDisk | undefined): ReadIndexFile => {
  const headerLength = head.readUInt32LE(8);
  const start = arraysStart(headerLength);
  if (head.length !== start) return { ok: false, reason: 'cut short' };
  const skipped = disk?.skipped ?? [];
  if (crc !== head.readUInt32LE(12)) return { ok: false, reason: 'checksum mismatch' };
  /** Where a file offset of the arrays' part lies in `body` (-1 inside a skipped column). */
  const local = (offset: number): number => {
    let shift = start;
    for (const [from, to] of skipped) {
      if (offset < from) break;
      if (offset < to) return -1;
      shift += to - from;
    }
    return offset < start ? -1 : offset - shift;
  };
  const bodyBytes = body.length + skipped.reduce((sum, [from, to]) => sum + to - from, 0);
  let header: Header;
  try {
    header = JSON.parse(head.subarray(PREFIX, PREFIX + headerLength).toString('utf8')) as Header;
  } catch {
    return { ok: false, reason: 'unreadable header' };
  }
  if (!Number.isInteger(header.format) || header.format < 1 || header.format > FORMAT) return { ok: false, reason: `format ${String(header.format)}` };
  const tailAt = start + bodyBytes;
  if (header.format >= 4 ? header.tail !== tailAt : tail.length > 0) return { ok: false, reason: 'ids region misplaced' };
  if (header.fingerprint !== fingerprint) return { ok: false, reason: 'written by another analyzer' };
  // Float64 views need 8-byte alignment of the underlying buffer.
  const buf = body.byteOffset % 8 === 0 ? body : new Uint8Array(body);
  const banks = new Map<string, SealedIndex>();
  for (const bank of header.banks) {
    const widthOf = (name: ArrayName): number => {
      if (isOneOf(FLOAT64, name)) return 8;
      if (isOneOf(UINT8, name)) return 1;
      // Formats 1 and 2 wrote every count column in 4 bytes.
      if (isOneOf(COUNTS, name) && header.format >= 3) return bank.arrays[name][2] ?? Number.NaN;
      return 4;
    };
    const at = (name: ArrayName): readonly [number, number] => {
      const [offset, length] = bank.arrays[name];
      const width = widthOf(name);
      if (isOneOf(COUNTS, name) && width !== 1 && width !== 2 && width !== 4) throw new Error(`array ${name} has ${width}-byte values`);
      // An empty array may share its offset with a region left on disk: it has no bytes to find.
      if (length === 0 && offset >= start && offset <= tailAt) return [buf.byteOffset, 0];
      const from = local(offset);
      if (from < 0 || offset % width !== 0 || from + length * width > buf.length) throw new Error(`array ${name} out of bounds`);
      return [buf.byteOffset + from, length];
    };
    /** The bank's postings, from the file when readParts left them there. */
    const postings = (): Pick<SealedIndex, 'postDocs' | 'postTfs' | 'postingsOnDisk'> => {
      const [docsAt, length] = bank.arrays.postDocs;
      if (disk === undefined || length === 0 || local(docsAt) >= 0) return { postDocs: i32('postDocs'), postTfs: counts('postTfs') };
      const [tfsAt, tfLength] = bank.arrays.postTfs;
      const width = widthOf('postTfs');
      if ((width !== 1 && width !== 2 && width !== 4) || tfLength !== length || local(tfsAt) >= 0) throw new Error('postings out of place');
      if (docsAt + length * 4 > tailAt || tfsAt + length * width > tailAt) throw new Error('postings out of bounds');
      return { postDocs: new Int32Array(0), postTfs: new Uint8Array(0), postingsOnDisk: new DiskPostings(disk.file, docsAt, tfsAt, width, length) };
    };
    const i32 = (name: (typeof INT32)[number]): Int32Array => new Int32Array(buf.buffer, ...at(name));
    const u8 = (name: (typeof UINT8)[number]): Uint8Array => new Uint8Array(buf.buffer, ...at(name));
    const counts = (name: (typeof COUNTS)[number]): Counts => {
      const width = widthOf(name);
      const place = at(name);
      return width === 1 ? new Uint8Array(buf.buffer, ...place) : width === 2 ? new Uint16Array(buf.buffer, ...place) : new Int32Array(buf.buffer, ...place);
    };
    const idsOf = (): readonly string[] | StoredIds => {
      if (header.format < 4) {
        if (bank.ids === undefined) throw new Error('ids missing');
        return bank.ids;
      }
      const [offset, length, count] = bank.idsAt ?? [-1, 0, 0];
      if (offset < tailAt || offset - tailAt + length > tail.length) throw new Error('ids out of bounds');
      const ids = StoredIds.of(tail.slice(offset - tailAt, offset - tailAt + length), count);
      if (typeof ids === 'string') throw new Error(ids);
      return ids;
    };
    try {
      banks.set(bank.bankId, {
        terms: bank.terms,
        ids: idsOf(),
        threadNames: threadNamesOf(bank, buf, local, disk === undefined ? undefined : { file: disk.file, end: tailAt }),
        speakerNames: bank.speakerNames,
        ownSome: bank.ownSome,
        addressedSome: bank.addressedSome,
        statCount: bank.statCount,
        statLength: bank.statLength,
        textDocs: i32('textDocs'),
        liveDocs: i32('liveDocs'),
        postStart: i32('postStart'),
        ...postings(),
        ctxStart: i32('ctxStart'),
        ctxDocs: i32('ctxDocs'),
        ctxTfs: counts('ctxTfs'),
        entStart: i32('entStart'),
        entDocs: i32('entDocs'),
        entTfs: counts('entTfs'),
        lengths: i32('lengths'),
        threadOf: i32('threadOf'),
        threadHead: i32('threadHead'),
        threadTail: i32('threadTail'),
        prev: i32('prev'),
        next: i32('next'),
        docTermStart: i32('docTermStart'),
        docTermIds: counts('docTermIds'),
        docTextTerms: i32('docTextTerms'),
        speakerOf: i32('speakerOf'),
        orders: new Float64Array(buf.buffer, ...at('orders')),
        derived: u8('derived'),
        // Formats 1-4 kept no kinds: all unknown, one per document (as many as text-term counts).
        kinds: header.format >= 5 ? u8('kinds') : new Uint8Array(at('docTextTerms')[1]),
        ownKind: u8('ownKind'),
        addressedKind: u8('addressedKind'),
      });
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
  return { ok: true, saved: { nextSeq: header.nextSeq, banks, ...(disk === undefined ? {} : { postingsFile: disk.file }) } };
};

/** Bytes per value of array `name` at `place` in a file of `format`, or NaN when the place names an impossible width. */
const widthIn = (format: unknown, name: ArrayName, place: readonly unknown[]): number => {
  if (isOneOf(FLOAT64, name)) return 8;
  if (isOneOf(UINT8, name)) return 1;
  if (!isOneOf(COUNTS, name) || typeof format !== 'number' || format < 3) return 4;
  const width = place[2];
  return width === 1 || width === 2 || width === 4 ? width : Number.NaN;
};

/**
 * The byte ranges of every bank's postings columns (documents and text frequencies) and thread
 * names, each with the padding to the next region, in file order, for readParts to leave on disk:
 * none when the header cannot be read or a range would reach into another array (decodeParts
 * then reads the whole file as before, and says what is wrong with it).
 */
const postingColumns = (head: Buffer, start: number, tailAt: number): [number, number][] => {
  let header: unknown;
  try {
    header = JSON.parse(head.subarray(PREFIX, PREFIX + head.readUInt32LE(8)).toString('utf8'));
  } catch {
    return [];
  }
  if (!isRecord(header) || !Array.isArray(header['banks'])) return [];
  const format = header['format'];
  const columns: [number, number][] = [];
  const others: [number, number][] = [];
  for (const bank of header['banks']) {
    if (!isRecord(bank) || !isRecord(bank['arrays'])) return [];
    const arrays = bank['arrays'];
    for (const name of ARRAY_NAMES) {
      const place: unknown = arrays[name];
      // An array a format lacks (kinds before format 5) is not in the file.
      if (place === undefined) continue;
      if (!Array.isArray(place)) return [];
      const [offset, length] = place;
      const width = widthIn(format, name, place);
      if (!Number.isInteger(offset) || !Number.isInteger(length) || typeof offset !== 'number' || typeof length !== 'number' || !Number.isInteger(width)) return [];
      const column = name === 'postDocs' || name === 'postTfs';
      (column ? columns : others).push([offset, column ? offset + align8(length * width) : offset + length * width]);
    }
    // Format 2 on: the thread names' JSON, parsed only when a write or a seal needs them.
    const names = bank['threadNamesAt'];
    if (Array.isArray(names) && Number.isInteger(names[0]) && Number.isInteger(names[1]) && typeof names[0] === 'number' && typeof names[1] === 'number') columns.push([names[0], names[0] + align8(names[1])]);
  }
  columns.sort((a, b) => a[0] - b[0]);
  for (const [i, [from, to]] of columns.entries()) {
    if (from < start || to > tailAt || from % 8 !== 0 || (i > 0 && from < (columns[i - 1]?.[1] ?? 0))) return [];
    if (others.some(([a, b]) => b > a && a < to && b > from)) return [];
  }
  return columns;
};

interface Parts {
  readonly head: Buffer;
  readonly body: Buffer;
  /** The ids' regions, a latin1 character per byte. */
  readonly tail: string;
  readonly crc: number;
  readonly disk: LeftOnDisk | undefined;
}

/**
 * The file's head (prefix, header, padding) and its arrays, each read into its own buffer, and
 * (format 4) its ids, read a chunk at a time into a string (store/chunkedRead.ts says why). The
 * postings columns and thread names are read for the CRC only, a chunk at a time, and left out
 * of the arrays' buffer: the file stays open for the index to read them from.
 */
const readParts = async (path: string): Promise<Parts | ReadIndexFile> => {
  const handle = await open(path, 'r');
  let kept = false;
  try {
    const size = (await handle.stat()).size;
    const prefix = Buffer.alloc(PREFIX);
    if (size < PREFIX || (await handle.read(prefix, 0, PREFIX, 0)).bytesRead !== PREFIX || !prefix.subarray(0, 8).equals(MAGIC)) return { ok: false, reason: 'not a saved index' };
    const start = arraysStart(prefix.readUInt32LE(8));
    if (start > size) return { ok: false, reason: 'cut short' };
    const head = Buffer.alloc(start);
    prefix.copy(head);
    if (start > PREFIX && (await handle.read(head, PREFIX, start - PREFIX, PREFIX)).bytesRead !== start - PREFIX) return { ok: false, reason: 'cut short' };
    const tailAt = Math.max(start, Math.min(tailOf(head), size));
    const skipped = postingColumns(head, start, tailAt);
    const skippedBytes = skipped.reduce((sum, [from, to]) => sum + to - from, 0);
    // Three buffers: the arrays' stays as the index's storage; the head's and the ids' are dropped.
    const body = Buffer.allocUnsafeSlow(tailAt - start - skippedBytes);
    const scratch = Buffer.allocUnsafe(READ_CHUNK);
    const readFully = async (into: Buffer, at: number, length: number, from: number): Promise<boolean> => length === 0 || (await handle.read(into, at, length, from)).bytesRead === length;
    let crc = crc32(head.subarray(PREFIX));
    let from = start;
    let into = 0;
    for (const [columnFrom, columnTo] of [...skipped, [tailAt, tailAt] as const]) {
      const before = columnFrom - from;
      if (!(await readFully(body, into, before, from))) return { ok: false, reason: 'cut short' };
      crc = crc32(body.subarray(into, into + before), crc);
      into += before;
      for (let at = columnFrom; at < columnTo; ) {
        const length = Math.min(scratch.length, columnTo - at);
        if (!(await readFully(scratch, 0, length, at))) return { ok: false, reason: 'cut short' };
        crc = crc32(scratch.subarray(0, length), crc);
        at += length;
      }
      from = columnTo;
    }
    const tail: string[] = [];
    for (let at = tailAt; at < size; ) {
      const length = Math.min(scratch.length, size - at);
      if (!(await readFully(scratch, 0, length, at))) return { ok: false, reason: 'cut short' };
      crc = crc32(scratch.subarray(0, length), crc);
      tail.push(scratch.toString('latin1', 0, length));
      at += length;
    }
    kept = skipped.length > 0;
    return { head, body, tail: tail.join(''), crc, disk: kept ? { file: new PostingsFile(handle), skipped } : undefined };
  } finally {
    if (!kept) await handle.close();
  }
};

/** Reads `search-index.bin` from `dir`; a missing or unreadable file is `{ok: false}` too (never rejects). */
export const readIndexFile = async (dir: string, fingerprint: string): Promise<ReadIndexFile> => {
  let parts: Parts | ReadIndexFile;
  try {
    parts = await readParts(join(dir, INDEX_FILE));
  } catch (error) {
    return { ok: false, reason: errnoCode(error) === 'ENOENT' ? 'none saved' : String(error) };
  }
  if ('ok' in parts) return parts;
  let read: ReadIndexFile;
  try {
    read = decodeParts(parts.head, parts.body, parts.tail, parts.crc, fingerprint, parts.disk);
  } catch (error) {
    // Never a rejection: start-up reads this beside the store and may not be waiting for it yet.
    read = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!read.ok) await parts.disk?.file.close();
  return read;
};

/** Replaces `search-index.bin` atomically: temp file, fsync, rename, directory fsync. */
export const writeIndexFile = (dir: string, bytes: Uint8Array): Promise<void> =>
  replaceFileDurably(dir, INDEX_FILE, async (handle) => {
    await handle.write(bytes, 0, bytes.length, 0);
  });
