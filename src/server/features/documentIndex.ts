/**
 * What the documents list reads of a bank's documents (id, last update, tags), kept in memory
 * in the list's order and in step with every document written or deleted. The list read every
 * stored document, text and all, on each call before (0.3-0.4 s at 100k one-item documents);
 * now it filters these entries and reads only the documents of the page it answers. Built from
 * the bank on first use, in slices.
 */
import type { BankState } from '../store/state.js';
import { Interned } from './interned.js';
import { SortedEntries } from './sortedEntries.js';

export interface DocumentEntry {
  readonly id: string;
  /** The document's place in the table's order (the old stable sort's tie order). */
  readonly seq: number;
  readonly updatedAt: string;
  readonly tags: readonly string[];
}

/** `updated_at` desc, then id. */
export const recentlyUpdated = (a: DocumentEntry, b: DocumentEntry): number =>
  b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id) || a.seq - b.seq;

export class DocumentIndex {
  private readonly entries = new Map<string, DocumentEntry>();
  private nextSeq = 0;
  /** One copy of each: the documents of one retain share their update time, and a bank has few tag sets. */
  private readonly times = new Interned<string>((time) => time);
  private readonly tagLists = new Interned<readonly string[]>((tags) => JSON.stringify(tags));
  private readonly order = new SortedEntries<DocumentEntry>(recentlyUpdated, (id) => this.entries.get(id));

  /** Empty until `fill` has run. */
  constructor(private readonly bank: BankState) {}

  /**
   * Reads every document of the bank, one step each (run in slices). Writes that land meanwhile
   * are given to `update` after it, in order, which leaves the entries in the table's order.
   */
  *fill(): Generator<undefined, void> {
    for (const id of [...this.bank.documents.keys()]) {
      this.update(id, this.bank.documents.has(id));
      yield undefined;
    }
    this.order.reset(this.entries.values());
  }

  /**
   * Follows a document.put (`present`) or document.delete of `id`. A put reads the document as
   * the table has it now (a later write is given here too); it keeps its place if it was there.
   */
  update(id: string, present: boolean): void {
    const document = present ? this.bank.documents.get(id) : undefined;
    const old = this.entries.get(id);
    if (document === undefined) this.entries.delete(id);
    else this.entries.set(id, { id, seq: old?.seq ?? this.nextSeq++, updatedAt: this.times.of(document.updated_at), tags: this.tagLists.of(document.tags) });
    this.order.touch(id);
  }

  /** Every document, most recently updated first. */
  recentlyUpdated(): readonly DocumentEntry[] {
    return this.order.entries();
  }
}
