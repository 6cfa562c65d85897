/**
 * Receipts of the last deliveries, a small JSON document next to the queue (lowdb).
 *
 * `Low` is built explicitly (the presets switch to memory under NODE_ENV=test) over an adapter
 * that writes atomically with fsync (steno, behind lowdb's JSONFile, never fsyncs and uses a
 * fixed temp name). Only the delivery-lease holder writes it, so read-modify-write is safe;
 * a damaged file is moved aside and a fresh one started: receipts are informative, not state.
 */
import { promises as fs } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { Low, type Adapter } from 'lowdb';
import { decodeJson } from '../../codecs/decode.js';
import { writeAtomic } from '../fs/atomicFile.js';
import { redactKnownValues } from '../../config/redact.js';
import { readStateFile } from '../fs/safeFile.js';

export const DeliveryReceiptRecord = t.type({
  at: t.string,
  bankId: t.string,
  jobCount: t.number,
  itemsCount: t.number,
  operationId: t.union([t.string, t.null]),
  async: t.boolean,
  documentIds: t.array(t.string),
});
export type DeliveryReceiptRecord = t.TypeOf<typeof DeliveryReceiptRecord>;

const ReceiptsDocument = t.type({ v: t.literal(1), receipts: t.array(DeliveryReceiptRecord) });
type ReceiptsDocument = t.TypeOf<typeof ReceiptsDocument>;

export const RECEIPTS_KEPT = 50;

/** lowdb adapter: decoded reads, atomic fsync'd writes, damaged files moved aside. */
class DurableJsonFile<A> implements Adapter<A> {
  readonly #file: string;
  readonly #codec: t.Type<A, unknown, unknown>;
  readonly #onDamage: ((message: string) => void) | undefined;

  constructor(file: string, codec: t.Type<A, unknown, unknown>, onDamage?: (message: string) => void) {
    this.#file = file;
    this.#codec = codec;
    this.#onDamage = onDamage;
  }

  async read(): Promise<A | null> {
    // No link is followed and at most 1 MB is read (src/adapters/fs/safeFile.ts).
    const text = await readStateFile(this.#file);
    if (text === undefined) return null;
    const decoded = decodeJson(this.#codec, this.#file)(text);
    if (E.isRight(decoded)) return decoded.right;
    const aside = `${this.#file}.corrupt-${Date.now()}`;
    await fs.rename(this.#file, aside).catch(() => undefined);
    this.#onDamage?.(`${decoded.left.message}; moved to ${aside}, starting empty`);
    return null;
  }

  async write(data: A): Promise<void> {
    await writeAtomic(this.#file, redactKnownValues(`${JSON.stringify(this.#codec.encode(data), null, 2)}\n`));
  }
}

export interface ReceiptsStore {
  /** Adds a receipt (keeping the last 50) and writes the file. */
  add(receipt: DeliveryReceiptRecord): Promise<void>;
  /** Newest last. */
  list(): Promise<readonly DeliveryReceiptRecord[]>;
}

export const openReceiptsStore = (file: string, onDamage?: (message: string) => void): ReceiptsStore => {
  const db = new Low<ReceiptsDocument>(new DurableJsonFile(file, ReceiptsDocument, onDamage), { v: 1, receipts: [] });
  // One read-modify-write at a time within the process.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn);
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    add: (receipt) =>
      serial(async () => {
        await db.read();
        db.data = { v: 1, receipts: [...db.data.receipts, receipt].slice(-RECEIPTS_KEPT) };
        await db.write();
      }),
    list: () =>
      serial(async () => {
        await db.read();
        return db.data.receipts;
      }),
  };
};
