/**
 * The store's snapshot as immutable segment files, `segment-<nextSeq>-<n>.seg`. A segment holds
 * the records (documents, chunks, facts) written since the previous one, one JSON value each,
 * back to back; then the locations of every live record (file, offset, length: little-endian
 * float64 triplets), which may point into older segments, and each fact's head (what a recall
 * filter reads: its type, whether it is invalidated, its tags) as two columns; then per bank its
 * document and chunk lists (a JSON region each); then a JSON footer (the log position, the files
 * it points into, per bank its small records, its fact ids in order and where its lists lie);
 * then a trailer with the sizes, a CRC of the records and one of everything after them.
 * Format 1 (trailer `AMSEG001`) held the lists in the footer; it is still read.
 *
 * The newest segment is the whole state: start-up reads its footer and locations, checks the
 * CRC of every file it points into, and reads a record only when it is asked for; the lists
 * are parsed only when the document tables are first used (a start followed by recalls never). A snapshot
 * writes only what changed since the last one; when the live records fill less than half of
 * the files, or the files are many, it copies every live record into the new segment instead
 * (compaction), and the files no longer pointed into are deleted. Each segment is written to a
 * temp file, fsync'd, renamed and the directory fsync'd: a crash leaves the old newest segment
 * or the new one.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { isRecord, JsonValue } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import { BankRecord, FactType, OperationRecord } from './model.js';
import type { ServerState } from './state.js';
import type { FactHead } from './model.js';
import { Locations, TRIPLET_BYTES } from './locations.js';
import { readTextSync } from './chunkedRead.js';
import { checkRecords, crcOfRange, damagedOnWorker, WORKER_FROM, type RecordsRegion } from './recordsCheck.js';

const NAME = /^segment-(\d{12})-(\d{4})\.seg$/;
const segmentName = (nextSeq: number, n: number): string => `segment-${String(nextSeq).padStart(12, '0')}-${String(n).padStart(4, '0')}.seg`;
const MAGIC_1 = Buffer.from('AMSEG001');
/** Format 1: float64 records length, u32 location count, u32 footer length, u32 records CRC, u32 locations+footer CRC, magic. */
const TRAILER_1 = 8 + 4 + 4 + 4 + 4 + MAGIC_1.length;
const MAGIC = Buffer.from('AMSEG002');
/** Format 2: format 1's fields, then u32 lists length, then the magic. */
const TRAILER = TRAILER_1 + 4;
/** Above this many files, or under half of their bytes live, a snapshot compacts. */
const MAX_FILES = 8;
/**
 * Decoded records kept for repeated reads (a recall reads the same candidates again). A slot's
 * record must die young: one that outlives two scavenges is promoted to the old generation and
 * is garbage there until a full collection, which a server answering recalls seldom runs. With
 * `serve`'s young generation held at 8 MB (hosts/cli/youngGeneration.ts) a scavenge comes every
 * several recalls; 256 slots are refilled within about three recalls of the bench's request
 * (some 90 records each), where 1,024 outlived the scavenges and, over 3,300 recalls at 100k
 * memories, grew the old generation to 78 MB. Another recall hits few of them anyway (8% of
 * reads with 8,192 slots).
 */
const CACHE_RECORDS = 256;
const WRITE_CHUNK = 1 << 20;
/** What `bytes` of no stored records would be. */
const EMPTY = new Uint8Array(0);
/** Bytes per location: file, offset, length (float64 each), tag set (u32), head code (u8). */
const PER_LOCATION = 24 + 4 + 1;
/** Head code: 0 not a fact, else 1 + the fact type's code, plus this bit if invalidated. */
const INVALIDATED = 0x80;

/** What a stored fact's head is made of, per location. */
export interface Heads {
  readonly codes: Uint8Array;
  readonly tagSets: Uint32Array;
  readonly factTypes: readonly FactType[];
  readonly tagSetList: readonly string[][];
}

const BankFooter = t.type({
  bank: BankRecord,
  operations: t.array(OperationRecord),
  records: t.array(t.tuple([t.string, t.string, JsonValue])),
  documents: t.array(t.string),
  /** Per document, how many of `chunks` (in order) are its. */
  documentChunks: t.array(t.number),
  chunks: t.array(t.string),
  /** Per document, how many of `facts` (in order) are its; the facts after them are in no document. */
  documentFacts: t.array(t.number),
  facts: t.array(t.string),
  /** The bank's first location; its documents', chunks' and facts' follow in that order. */
  at: t.number,
});
export type BankFooter = t.TypeOf<typeof BankFooter>;

/** A bank's document and chunk lists, which start-up does not keep (BankHead). */
const DocumentLists = t.type({
  documents: t.array(t.string),
  documentChunks: t.array(t.number),
  chunks: t.array(t.string),
  documentFacts: t.array(t.number),
});
export type DocumentLists = t.TypeOf<typeof DocumentLists>;

/** Format 2: a bank's footer without its lists, which lie in their own region. */
const BankFooter2 = t.type({
  bank: BankRecord,
  operations: t.array(OperationRecord),
  records: t.array(t.tuple([t.string, t.string, JsonValue])),
  facts: t.array(t.string),
  at: t.number,
  documentCount: t.number,
  chunkCount: t.number,
  /** The lists' region: byte offset in the file, length, CRC-32. */
  lists: t.tuple([t.number, t.number, t.number]),
});
type BankFooter2 = t.TypeOf<typeof BankFooter2>;

const footerOf = <B extends t.Mixed, V extends number>(segment: V, bank: B) =>
  t.type({
    segment: t.literal(segment),
    nextSeq: t.number,
    files: t.array(t.string),
    banks: t.array(bank),
    /** The heads' fact types and tag sets, by code. */
    factTypes: t.array(FactType),
    tagSets: t.array(t.array(t.string)),
  });
const Footer1 = footerOf(1, BankFooter);
const Footer2 = footerOf(2, BankFooter2);
const Footer = t.union([Footer2, Footer1]);
type Footer = t.TypeOf<typeof Footer>;

interface Trailer {
  readonly recordsLength: number;
  readonly locations: number;
  readonly format: 1 | 2;
  /** 0 in format 1. */
  readonly listsLength: number;
  readonly footerLength: number;
  readonly recordsCrc: number;
  readonly footerCrc: number;
}

const damaged = (path: string, why: string): Error =>
  new Error(`server data: ${path} is damaged (${why}); restore a backup of the data dir, or move it aside to start empty`);

/** The trailer of a segment of either format (a segment may point into files written before format 2). */
const readTrailer = (fd: number, path: string): Trailer => {
  const size = fstatSync(fd).size;
  if (size < TRAILER_1) throw damaged(path, 'shorter than its trailer');
  const buf = Buffer.alloc(TRAILER);
  const got = Math.min(TRAILER, size);
  readSync(fd, buf, TRAILER - got, got, size - got);
  const magic = buf.subarray(TRAILER - MAGIC.length);
  const format = magic.equals(MAGIC) ? 2 : magic.equals(MAGIC_1) ? 1 : undefined;
  if (format === undefined || (format === 2 && size < TRAILER)) throw damaged(path, 'no segment trailer');
  const fields = format === 2 ? buf : buf.subarray(TRAILER - TRAILER_1);
  const trailer = {
    recordsLength: fields.readDoubleLE(0),
    locations: fields.readUInt32LE(8),
    footerLength: fields.readUInt32LE(12),
    recordsCrc: fields.readUInt32LE(16),
    footerCrc: fields.readUInt32LE(20),
    listsLength: format === 2 ? fields.readUInt32LE(24) : 0,
    format,
  } as const;
  const trailerLength = format === 2 ? TRAILER : TRAILER_1;
  if (trailer.recordsLength + trailer.locations * PER_LOCATION + trailer.listsLength + trailer.footerLength + trailerLength !== size) throw damaged(path, 'sizes do not add up');
  return trailer;
};

/** The records of the segment files, read by location number on demand. */
export class StoredRecords {
  private scratch = Buffer.allocUnsafe(64 * 1024);
  // Direct-mapped by location: O(1) whatever the access pattern (a Map evicting its oldest entry
  // walks over the holes its deletions leave, which made a read 30 us instead of 8).
  private readonly cacheAt = new Int32Array(CACHE_RECORDS).fill(-1);
  private readonly cacheValue: unknown[] = new Array<unknown>(CACHE_RECORDS);

  constructor(
    private readonly dir: string,
    readonly files: readonly string[],
    private readonly fds: readonly number[],
    /** Records bytes of each file. */
    readonly recordBytes: readonly number[],
    readonly locations: Locations,
    readonly heads: Heads,
  ) {}

  /** A stored fact's head, without reading the fact. */
  head(at: number): FactHead | undefined {
    const code = this.heads.codes[at] ?? 0;
    const type = this.heads.factTypes[(code & ~INVALIDATED) - 1];
    const tags = this.heads.tagSetList[this.heads.tagSets[at] ?? 0];
    if (code === 0 || type === undefined || tags === undefined) return undefined;
    return (code & INVALIDATED) !== 0 ? { fact_type: type, tags, state: 'invalidated' } : { fact_type: type, tags };
  }

  get count(): number {
    return this.locations.count;
  }

  length(at: number): number {
    return this.locations.length(at);
  }

  /** The raw bytes of location `at`, valid until the next read. */
  bytes(at: number): Buffer {
    // Read first: `readScratch` replaces a scratch too small for the record, and
    // `this.scratch.subarray(0, this.readScratch(at))` took the buffer before that.
    const length = this.readScratch(at);
    return this.scratch.subarray(0, length);
  }

  /** Reads location `at` into the start of `scratch`; answers its length. */
  private readScratch(at: number): number {
    const file = this.locations.file(at);
    const offset = this.locations.offset(at);
    const length = this.locations.length(at);
    const fd = this.fds[file];
    if (fd === undefined) throw new Error(`server data: no stored record ${at}`);
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
    const n = readSync(fd, this.scratch, 0, length, offset);
    if (n !== length) throw damaged(join(this.dir, this.files[file] ?? ''), `record at ${offset} cut short`);
    return length;
  }

  /** Record `at`, decoded and checked by `is` (kept in a small cache: records never change). */
  read<T>(at: number, is: (u: unknown) => u is T, kind: string): T {
    const slot = at % CACHE_RECORDS;
    const cached = this.cacheValue[slot];
    if (this.cacheAt[slot] === at && is(cached)) return cached;
    const file = this.files[this.locations.file(at)] ?? '';
    let value: unknown;
    try {
      // Decoded from the scratch buffer in place: no `subarray` view made per record.
      // The length is read first, as in `bytes`: a record larger than the scratch replaces it.
      const length = this.readScratch(at);
      value = JSON.parse(this.scratch.toString('utf8', 0, length));
    } catch {
      throw damaged(join(this.dir, file), `stored ${kind} ${at} is not JSON`);
    }
    if (!is(value)) throw damaged(join(this.dir, file), `stored ${kind} ${at} is not a valid ${kind}`);
    this.cacheAt[slot] = at;
    this.cacheValue[slot] = value;
    return value;
  }

  close(): void {
    for (const fd of this.fds) closeSync(fd);
  }
}

/**
 * A bank's footer as start-up keeps it: without its document and chunk lists (two strings and two
 * numbers per document: 8 MB at 100k one-item documents, ten times that at 1M), which only the
 * tables made when first used need. `documentLists` reads them from the segment file (format 2:
 * their own region, never parsed at start-up; format 1: the footer again); the snapshot that
 * could delete that file uses the tables first, so it is there until then.
 */
export interface BankHead extends Omit<BankFooter, keyof DocumentLists> {
  readonly documentCount: number;
  readonly chunkCount: number;
  readonly documentLists: () => DocumentLists;
}

/** Bank `i` of a format 2 footer: its lists are read from their region, and checked, when first needed. */
const headOf2 = (bank: BankFooter2, path: string, listsStart: number, listsEnd: number): BankHead => {
  const [at, length, crc] = bank.lists;
  if (!Number.isInteger(at) || !Number.isInteger(length) || at < listsStart || length < 0 || at + length > listsEnd) throw damaged(path, `the lists of bank ${bank.bank.bank_id} lie outside their region`);
  const { documentCount, chunkCount } = bank;
  return headWith(bank, documentCount, chunkCount, path, () => {
    const lists = readListsRegion(path, at, length, crc);
    return lists !== undefined && lists.documents.length === documentCount && lists.chunks.length === chunkCount && lists.documentChunks.length === documentCount && lists.documentFacts.length === documentCount ? lists : undefined;
  });
};

/**
 * A bank's head: the footer's fields, and its lists read again when first needed by `reread`,
 * which answers undefined when they are not the ones checked at start-up.
 */
const headWith = (bank: Omit<BankHead, 'documentCount' | 'chunkCount' | 'documentLists'>, documentCount: number, chunkCount: number, path: string, reread: () => DocumentLists | undefined): BankHead => ({
  bank: bank.bank,
  operations: bank.operations,
  records: bank.records,
  facts: bank.facts,
  at: bank.at,
  documentCount,
  chunkCount,
  documentLists: () => {
    const lists = reread();
    if (lists === undefined) throw damaged(path, 'its document lists are no longer the ones checked at start-up');
    return lists;
  },
});

/** `length` bytes at `at` in `path` as JSON (checked against `crc` when given); undefined if they cannot be read. */
const readJsonRegion = (path: string, at: number, length: number, crc?: number): unknown => {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let seen = 0;
    const text = readTextSync(fd, at, length, 'utf8', (chunk) => {
      seen = crc32(chunk, seen);
    });
    if (text === undefined || (crc !== undefined && seen !== crc)) return undefined;
    const raw: unknown = JSON.parse(text);
    return raw;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
};

/** A bank's lists region, read, checked against its CRC and decoded; undefined if it cannot be. */
const readListsRegion = (path: string, at: number, length: number, crc: number): DocumentLists | undefined => {
  const raw = readJsonRegion(path, at, length, crc);
  return DocumentLists.is(raw) ? raw : undefined;
};

const headOf = (bank: BankFooter, i: number, path: string, footerAt: number, footerLength: number): BankHead => {
  // Only counts and the id are kept for the check below: the closure must not hold the lists.
  const documentCount = bank.documents.length;
  const chunkCount = bank.chunks.length;
  const bankId = bank.bank.bank_id;
  return headWith(bank, documentCount, chunkCount, path, () => {
    const lists = rereadLists(path, footerAt, footerLength, i);
    return lists !== undefined && lists.bank.bank_id === bankId && lists.documents.length === documentCount && lists.chunks.length === chunkCount ? lists : undefined;
  });
};

/** Bank `i` of the footer at `footerAt` in `path`, read and decoded again; undefined if it cannot be. */
const rereadLists = (path: string, footerAt: number, footerLength: number, i: number): BankFooter | undefined => {
  const raw = readJsonRegion(path, footerAt, footerLength);
  return Footer1.is(raw) ? raw.banks[i] : undefined;
};

export interface LoadedSegments {
  readonly nextSeq: number;
  readonly banks: readonly BankHead[];
  readonly stored: StoredRecords;
  readonly name: string;
  /**
   * The records' CRCs of every file, checked while the caller restores the state (recordsCheck.ts):
   * rejects naming the first damaged file. The caller awaits it before using the store, and before
   * closing `stored` (its fds are being read).
   */
  readonly recordsChecked: Promise<void>;
}

const segmentNames = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => NAME.test(n)).sort();

/**
 * The records check started before the newest segment's footer is parsed: at 1M memories the
 * footer's parse and the fact table's fill came before it, and the worker's 1.5 GB then went on
 * after the main thread had nothing left but to wait for it. The footer is what names the files,
 * so every segment file of the dir is checked (each opened and its trailer read here; one whose
 * trailer cannot be read is left to the footer's own opening, which reports it), on a worker and
 * whole, and the verdicts kept are those on the files the footer names. Only when the records
 * reach `workerFrom` bytes; below, the named files are checked inline after the footer, as before.
 */
interface EarlyCheck {
  /** File name -> the fd opened for it (the newest segment's own fd among them). */
  readonly opened: ReadonlyMap<string, number>;
  /** The paths of the checked regions. */
  readonly checked: ReadonlySet<string>;
  /** The damaged regions' paths. */
  readonly damaged: Promise<Set<string>>;
  /** Settles once the worker is done with the fds (resolves either way). */
  readonly settled: Promise<void>;
}

const startEarlyCheck = (dir: string, names: readonly string[], newest: string, newestFd: number, newestTrailer: Trailer, workerFrom: number): EarlyCheck | undefined => {
  const opened = new Map<string, number>([[newest, newestFd]]);
  const regions: RecordsRegion[] = [{ fd: newestFd, length: newestTrailer.recordsLength, crc: newestTrailer.recordsCrc, path: join(dir, newest) }];
  for (const file of names) {
    if (file === newest) continue;
    const filePath = join(dir, file);
    let other: number | undefined;
    try {
      other = openSync(filePath, 'r');
      const own = readTrailer(other, filePath);
      regions.push({ fd: other, length: own.recordsLength, crc: own.recordsCrc, path: filePath });
      opened.set(file, other);
    } catch {
      if (other !== undefined) closeSync(other);
    }
  }
  if (regions.reduce((sum, r) => sum + r.length, 0) < workerFrom) {
    for (const [file, other] of opened) if (file !== newest) closeSync(other);
    return undefined;
  }
  const damagedPaths = damagedOnWorker(regions).then((bad) => new Set(bad.map((r) => r.path)));
  return {
    opened,
    checked: new Set(regions.map((r) => r.path)),
    damaged: damagedPaths,
    settled: damagedPaths.then(
      () => undefined,
      () => undefined,
    ),
  };
};

/**
 * The path of the first of `regions` (the footer's files, in order) found damaged: by the early
 * check, or by a check of its own for a named file the early one did not read. Closes the early
 * check's fds the store does not keep (`fds`) once the worker is done with them.
 */
const earlyVerdict = async (early: EarlyCheck, regions: readonly RecordsRegion[], fds: readonly number[]): Promise<string | undefined> => {
  try {
    const unchecked = regions.filter((r) => !early.checked.has(r.path));
    const bad = await early.damaged;
    const second = unchecked.length > 0 ? await checkRecords(unchecked) : undefined;
    return regions.find((r) => bad.has(r.path) || r === second)?.path;
  } finally {
    await early.settled;
    for (const other of early.opened.values()) if (!fds.includes(other)) closeSync(other);
  }
};

/**
 * Reads the newest segment's footer and checks every file it points into; undefined: no segment
 * yet. `workerFrom`: records bytes from which the check runs on a worker (recordsCheck.ts).
 */
export const loadSegments = async (dir: string, workerFrom = WORKER_FROM): Promise<LoadedSegments | undefined> => {
  const names = await segmentNames(dir);
  const name = names.at(-1);
  if (name === undefined) return undefined;
  if (endianness() !== 'LE') throw new Error('server data: segment files are little-endian; this machine is not');
  const path = join(dir, name);
  const fd = openSync(path, 'r');
  const fds: number[] = [];
  let early: EarlyCheck | undefined;
  try {
    const trailer = readTrailer(fd, path);
    early = startEarlyCheck(dir, names, name, fd, trailer, workerFrom);
    const locations = new Locations(trailer.locations);
    const tagSets = new Uint32Array(trailer.locations);
    const codes = new Uint8Array(trailer.locations);
    let crc = 0;
    let at = trailer.recordsLength;
    // The locations a chunk at a time, into their columns: the float64 triplets are never held whole.
    const misfit = locations.readFrom(
      (buffer, length, position) => {
        if (readSync(fd, buffer, 0, length, at + position) !== length) throw damaged(path, 'cut short');
      },
      (chunk) => {
        crc = crc32(chunk, crc);
      },
    );
    at += trailer.locations * TRIPLET_BYTES;
    for (const part of [new Uint8Array(tagSets.buffer), codes]) {
      if (part.length > 0 && readSync(fd, part, 0, part.length, at) !== part.length) throw damaged(path, 'cut short');
      crc = crc32(part, crc);
      at += part.length;
    }
    // The lists are checked here with everything else, but not kept: read a chunk at a time.
    const listsAt = at;
    crc = crcOfRange(fd, trailer.listsLength, at, crc);
    at += trailer.listsLength;
    // The footer (every fact id of the bank: 4 MB at 100k memories) a chunk at a time (chunkedRead.ts).
    const footerText = readTextSync(fd, at, trailer.footerLength, 'utf8', (chunk) => {
      crc = crc32(chunk, crc);
    });
    if (footerText === undefined) throw damaged(path, 'cut short');
    const footerCrc = crc;
    if (footerCrc !== trailer.footerCrc) throw damaged(path, 'footer checksum mismatch');
    let raw: unknown;
    try {
      raw = JSON.parse(footerText);
    } catch {
      throw damaged(path, 'footer is not JSON');
    }
    // A segment's format is its trailer's: a footer of the other format is damage, not a choice.
    if (!isRecord(raw) || raw['segment'] !== trailer.format) throw damaged(path, `footer is not in its trailer's format ${trailer.format}`);
    const footer: Footer = Footer.is(raw)
      ? raw
      : E.getOrElseW((e: { message: string }) => {
          throw damaged(path, e.message);
        })(decodeWith(Footer, `${path} footer`)(raw));
    const recordBytes: number[] = [];
    const regions: RecordsRegion[] = [];
    for (const file of footer.files) {
      const filePath = join(dir, file);
      if (!NAME.test(file)) throw damaged(path, `points into ${file}, not a segment`);
      // A file named twice gets an fd of its own the second time (the store closes each once).
      const pre = early?.opened.get(file);
      const other = file === name ? fd : pre !== undefined && !fds.includes(pre) ? pre : openSync(filePath, 'r');
      fds.push(other);
      const own = other === fd ? trailer : readTrailer(other, filePath);
      regions.push({ fd: other, length: own.recordsLength, crc: own.recordsCrc, path: filePath });
      recordBytes.push(own.recordsLength);
    }
    if (misfit >= 0) throw damaged(path, `location ${misfit} is outside its file`);
    for (let i = 0; i < locations.count; i += 1) {
      const file = locations.file(i);
      const end = locations.offset(i) + locations.length(i);
      if (file < 0 || file >= footer.files.length || !(end <= (recordBytes[file] ?? 0))) throw damaged(path, `location ${i} is outside its file`);
    }
    // The early check may still be reading it: then closed once it is done (earlyVerdict).
    if (!fds.includes(fd) && early === undefined) closeSync(fd);
    for (let i = 0; i < codes.length; i += 1) {
      const code = codes[i] ?? 0;
      if (code !== 0 && (footer.factTypes[(code & ~INVALIDATED) - 1] === undefined || footer.tagSets[tagSets[i] ?? 0] === undefined)) throw damaged(path, `head ${i} names no type or tags`);
    }
    const heads: Heads = { codes, tagSets, factTypes: footer.factTypes, tagSetList: footer.tagSets };
    const footerAt = listsAt + trailer.listsLength;
    const banks = footer.segment === 2 ? footer.banks.map((bank) => headOf2(bank, path, listsAt, footerAt)) : footer.banks.map((bank, i) => headOf(bank, i, path, footerAt, trailer.footerLength));
    // Started last (when not started early): nothing below may close the fds it reads.
    const badPath = early === undefined ? checkRecords(regions).then((bad) => bad?.path) : earlyVerdict(early, regions, fds);
    const recordsChecked = badPath.then((bad) => {
      if (bad !== undefined) throw damaged(bad, 'records checksum mismatch');
    });
    return { nextSeq: footer.nextSeq, banks, stored: new StoredRecords(dir, footer.files, fds, recordBytes, locations, heads), name, recordsChecked };
  } catch (error) {
    // Not while the early check reads them.
    await early?.settled;
    for (const other of new Set([fd, ...fds, ...(early?.opened.values() ?? [])])) closeSync(other);
    throw error;
  }
};

type Kind = 'document' | 'chunk' | 'fact';

/**
 * Visits every live record in segment order, with what it is held as: per bank its documents,
 * then their chunks, then their facts, then the facts in no document. `bankDone` gets, per bank,
 * the per-document counts. A snapshot walks once: each step is a lookup in a map as large as
 * the bank, and three walks (the compaction test, the writing, the new pointers) were a sixth of
 * a 100k sync ingest's CPU.
 */
const walk = (
  state: ServerState,
  visit: (value: object | number, kind: Kind, id: string, head?: FactHead) => void,
  bankDone: (bankId: string, documentChunks: number[], documentFacts: number[]) => void,
): void => {
  for (const [bankId, bank] of state.banks) {
    const documentChunks: number[] = [];
    const documentFacts: number[] = [];
    const documentIds = [...bank.documents.keys()];
    for (const id of documentIds) {
      const value = bank.documents.held(id);
      if (value !== undefined) visit(value, 'document', id);
    }
    for (const id of documentIds) {
      let n = 0;
      for (const chunkId of bank.chunksByDocument.get(id) ?? []) {
        const value = bank.chunks.held(chunkId);
        if (value === undefined) continue;
        visit(value, 'chunk', chunkId);
        n += 1;
      }
      documentChunks.push(n);
    }
    const inDocuments = new Set<string>();
    for (const id of documentIds) {
      let n = 0;
      for (const factId of bank.factsByDocument.get(id) ?? []) {
        const value = bank.facts.held(factId);
        if (value === undefined) continue;
        inDocuments.add(factId);
        visit(value, 'fact', factId, bank.facts.headOfHeld(value));
        n += 1;
      }
      documentFacts.push(n);
    }
    // Observations and other facts written by facts.put come last, as the old snapshot's facts.put did.
    if (inDocuments.size < bank.facts.size) {
      for (const id of bank.facts.keys()) {
        if (inDocuments.has(id)) continue;
        const value = bank.facts.held(id);
        if (value !== undefined) visit(value, 'fact', id, bank.facts.headOfHeld(value));
      }
    }
    bankDone(bankId, documentChunks, documentFacts);
  }
};

/**
 * Appends bytes to a file in chunks, keeping the offset and a running CRC. A record's JSON is
 * encoded straight into the chunk being filled (`putText`), and the CRC is taken over a chunk's
 * bytes when they are next asked for or written: a snapshot writes every record written since
 * the last one, and it made a Buffer, a CRC call and an await per record.
 */
class ChunkedWriter {
  private chunk = Buffer.allocUnsafe(WRITE_CHUNK);
  /** Bytes of `chunk` filled, and how many of them the running CRC holds. */
  private used = 0;
  private hashed = 0;
  private runningCrc = 0;
  offset = 0;

  constructor(private readonly handle: FileHandle) {}

  /** The CRC-32 of every byte appended so far. */
  get crc(): number {
    this.hashFilled();
    return this.runningCrc;
  }

  /** Whether the chunk is full enough to be written (`flush`) before the next append. */
  get due(): boolean {
    return this.used >= WRITE_CHUNK / 2;
  }

  /** Appends `text` as UTF-8 without writing; answers its byte length. Call `flush` when `due`. */
  putText(text: string): number {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a text that may not fit is encoded on its own.
    if (text.length * 3 > this.chunk.length - this.used) return this.putBytes(Buffer.from(text));
    const n = this.chunk.write(text, this.used, 'utf8');
    this.used += n;
    this.offset += n;
    return n;
  }

  /** Appends a copy of `bytes` without writing; answers their length. Call `flush` when `due`. */
  putBytes(bytes: Uint8Array): number {
    if (bytes.length > this.chunk.length - this.used) this.grow(bytes.length);
    this.chunk.set(bytes, this.used);
    this.used += bytes.length;
    this.offset += bytes.length;
    return bytes.length;
  }

  async add(bytes: Uint8Array): Promise<void> {
    this.putBytes(bytes);
    if (this.due) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    this.hashFilled();
    const filled = this.used;
    this.used = 0;
    this.hashed = 0;
    await this.handle.write(this.chunk, 0, filled, null);
  }

  private hashFilled(): void {
    if (this.hashed === this.used) return;
    this.runningCrc = crc32(this.chunk.subarray(this.hashed, this.used), this.runningCrc);
    this.hashed = this.used;
  }

  /** A larger chunk holding what is not yet written, with room for `bytes` more. */
  private grow(bytes: number): void {
    this.hashFilled();
    const larger = Buffer.allocUnsafe(Math.max(WRITE_CHUNK, this.used + bytes));
    this.chunk.copy(larger, 0, 0, this.used);
    this.chunk = larger;
  }
}

export interface WrittenSegment {
  readonly name: string;
  readonly stored: StoredRecords;
  /** Whether every live record was copied into it (the older files are gone). */
  readonly compacted: boolean;
  readonly bytesWritten: number;
}

/**
 * Writes the state as a new newest segment (nothing may change the state meanwhile: the store
 * runs this between log batches), then points every table at its stored records, so records
 * written as objects since the last segment are dropped from memory. Deletes the files no longer
 * pointed into. `current` is the stored records the state points into now.
 */
export const writeSegment = async (dir: string, state: ServerState, nextSeq: number, current: StoredRecords | undefined): Promise<WrittenSegment> => {
  // The walk is synchronous and only collects what each record is held as; the bytes are
  // made one at a time after it, so a compaction never holds every record at once.
  const held: (object | number)[] = [];
  const heads: (FactHead | undefined)[] = [];
  const ids: Record<Kind, string[]> = { document: [], chunk: [], fact: [] };
  const pendingBanks: { bankId: string; documentChunks: number[]; documentFacts: number[]; ids: Record<Kind, string[]>; at: number }[] = [];
  let bankAt = 0;
  walk(
    state,
    (value, kind, id, head) => {
      ids[kind].push(id);
      heads.push(head);
      held.push(value);
    },
    (bankId, documentChunks, documentFacts) => {
      pendingBanks.push({ bankId, documentChunks, documentFacts, ids: { ...ids }, at: bankAt });
      bankAt = held.length;
      ids.document = [];
      ids.chunk = [];
      ids.fact = [];
    },
  );
  // Compact when the live stored records are under half of the files' bytes, or the files are many.
  let liveStored = 0;
  if (current !== undefined) for (const value of held) if (typeof value === 'number') liveStored += current.length(value);
  const fileBytes = current?.recordBytes.reduce((a, b) => a + b, 0) ?? 0;
  const compact = current === undefined || current.files.length + 1 > MAX_FILES || liveStored * 2 < fileBytes;
  const existing = await segmentNames(dir);
  let n = 0;
  while (existing.includes(segmentName(nextSeq, n))) n += 1;
  const name = segmentName(nextSeq, n);
  // The new file's slot is the last; older files keep theirs (or none, when compacting).
  const files = compact || current === undefined ? [name] : [...current.files, name];
  const ownSlot = files.length - 1;

  const locations = new Locations(held.length);
  const codes = new Uint8Array(held.length);
  const tagSets = new Uint32Array(held.length);
  const factTypes: FactType[] = [];
  const tagSetList: string[][] = [];
  const tagSetCodes = new Map<string, number>();
  const setHead = (i: number, head: FactHead): void => {
    let type = factTypes.indexOf(head.fact_type);
    if (type < 0) type = factTypes.push(head.fact_type) - 1;
    const key = head.tags.join('\u0000');
    let set = tagSetCodes.get(key);
    if (set === undefined) {
      set = tagSetList.push([...head.tags]) - 1;
      tagSetCodes.set(key, set);
    }
    codes[i] = (type + 1) | (head.state === 'invalidated' ? INVALIDATED : 0);
    tagSets[i] = set;
  };
  const banks: BankFooter2[] = [];
  let recordsLength = 0;
  const tempPath = join(dir, `${name}.tmp`);
  const handle = await open(tempPath, 'w', 0o600);
  try {
    const out = new ChunkedWriter(handle);
    for (let i = 0; i < held.length; i += 1) {
      const value = held[i];
      const head = heads[i];
      if (head !== undefined) setHead(i, head);
      if (typeof value === 'number' && current !== undefined && !compact) {
        locations.copyFrom(current.locations, value, i);
        continue;
      }
      const at = out.offset;
      const length = typeof value === 'number' ? out.putBytes(current?.bytes(value) ?? EMPTY) : out.putText(JSON.stringify(value));
      if (!locations.set(i, ownSlot, at, length)) throw new Error(`store: a ${length}-byte record does not fit a segment's locations`);
      if (out.due) await out.flush();
    }
    recordsLength = out.offset;
    const recordsCrc = out.crc;
    let footerCrc = 0;
    for (const part of locations.triplets()) {
      footerCrc = crc32(part, footerCrc);
      await out.add(part);
    }
    for (const part of [Buffer.from(tagSets.buffer, tagSets.byteOffset, tagSets.byteLength), Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength)]) {
      footerCrc = crc32(part, footerCrc);
      await out.add(part);
    }
    const listsAt = out.offset;
    for (const p of pendingBanks) {
      const bank = state.banks.get(p.bankId);
      if (bank === undefined) continue;
      const feature: [string, string, JsonValue][] = [];
      for (const [kind, byId] of bank.records) for (const [id, value] of byId) feature.push([kind, id, value]);
      const lists = Buffer.from(JSON.stringify({ documents: p.ids.document, documentChunks: p.documentChunks, chunks: p.ids.chunk, documentFacts: p.documentFacts } satisfies DocumentLists));
      banks.push({
        bank: bank.bank,
        operations: [...bank.operations.values()],
        records: feature,
        facts: p.ids.fact,
        at: p.at,
        documentCount: p.ids.document.length,
        chunkCount: p.ids.chunk.length,
        lists: [out.offset, lists.length, crc32(lists)],
      });
      footerCrc = crc32(lists, footerCrc);
      await out.add(lists);
    }
    const listsLength = out.offset - listsAt;
    const footerBytes = Buffer.from(JSON.stringify({ segment: 2, nextSeq, files, banks, factTypes, tagSets: tagSetList } satisfies Footer));
    footerCrc = crc32(footerBytes, footerCrc);
    await out.add(footerBytes);
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeDoubleLE(recordsLength, 0);
    trailer.writeUInt32LE(locations.count, 8);
    trailer.writeUInt32LE(footerBytes.length, 12);
    trailer.writeUInt32LE(recordsCrc, 16);
    trailer.writeUInt32LE(footerCrc, 20);
    trailer.writeUInt32LE(listsLength, 24);
    MAGIC.copy(trailer, TRAILER - MAGIC.length);
    await out.add(trailer);
    await out.flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tempPath, join(dir, name));
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }

  const fds = files.map((file) => openSync(join(dir, file), 'r'));
  const recordBytes = files.map((file, i) => (i === ownSlot ? recordsLength : (current?.recordBytes[current.files.indexOf(file)] ?? 0)));
  const stored = new StoredRecords(dir, files, fds, recordBytes, locations, { codes, tagSets, factTypes, tagSetList });
  // The new positions and the file they point into are published together, with no await
  // between: a read in between would take a new position from the old (closed) files.
  // In the walk's order: per bank its documents, chunks and facts (`ids` as the walk listed them).
  for (const p of pendingBanks) {
    const bank = state.banks.get(p.bankId);
    if (bank === undefined) continue;
    let at = p.at;
    for (const id of p.ids.document) bank.documents.setStored(id, at++);
    for (const id of p.ids.chunk) bank.chunks.setStored(id, at++);
    for (const id of p.ids.fact) bank.facts.setStored(id, at++);
  }
  state.useStored(stored);
  current?.close();
  for (const old of existing) if (!files.includes(old)) await unlink(join(dir, old));
  return { name, stored, compacted: compact, bytesWritten: recordsLength };
};
