/**
 * The in-memory state of the server and the one function that changes it: `apply(mutation)`.
 * Reads go straight to these maps; writes go through the store, which makes each mutation
 * durable before applying it here.
 */
import type { JsonValue } from '../../codecs/codecs.js';
import { ChunkRecord, DocumentRecord } from './model.js';
import type { BankRecord, FactHead, FactRecord, Mutation, OperationRecord } from './model.js';
import { isFactRecord } from './factGuard.js';
import { DeferredMap, FactTable, RecordTable } from './recordTable.js';
import type { BankHead, StoredRecords } from './segments.js';
import { runSliced, type SliceTimer } from '../slices.js';

/** Documents made per step of a sliced fill (a step is some milliseconds at 1M). */
const FILL_STEP = 2_000;

/**
 * A bank's records of this kind say that work derived from all its facts (the observation pass)
 * covered them as they are. Applying any change to the bank's facts or documents drops them, here,
 * where the change itself is applied: the log's replay and the snapshot's records make the same
 * decision at a restart, so a record still there after start-up means no fact changed since it was
 * written. Written by `record.put` (after what it covers, in the same commit).
 */
export const COVERED_KIND = 'facts_covered';

export interface BankState {
  bank: BankRecord;
  /** Documents, chunks and facts: held as objects or read from the segment files on demand. */
  readonly documents: RecordTable<DocumentRecord>;
  readonly chunks: RecordTable<ChunkRecord>;
  readonly facts: FactTable<FactRecord, FactHead>;
  /** document id -> ids of its facts, in document order. */
  readonly factsByDocument: DeferredMap<string, string[]>;
  /** document id -> ids of its chunks, in order. */
  readonly chunksByDocument: DeferredMap<string, string[]>;
  readonly operations: Map<string, OperationRecord>;
  /** Feature records: kind -> id -> value. */
  readonly records: Map<string, Map<string, JsonValue>>;
  /**
   * Makes the tables deferred at start-up in slices that hand the event loop back, and resolves
   * when they are made (at once if none are deferred). Any other use of them meanwhile makes the
   * rest at once, so every read sees whole tables.
   */
  fillInSlices: (slice?: SliceTimer) => Promise<void>;
  /**
   * The `index`-th document as the segment stores it, read alone, while the documents table is
   * not made (a restored bank's, until its first use); undefined otherwise. A walk over every
   * document (the observation pass's scopes) so leaves the tables unmade: made, they are about
   * 330 bytes a document for the server's life. A snapshot makes them first, so while they are
   * not made the start-up's segment numbering holds.
   */
  storedDocument: (index: number) => DocumentRecord | undefined;
}

/** Facts added and removed by one mutation, so a search index can follow incrementally. */
export interface FactChange {
  readonly bankId: string;
  readonly added: readonly FactRecord[];
  readonly removed: readonly FactRecord[];
  /** The whole bank went away (bank.delete): indexes drop it. */
  readonly bankDeleted?: boolean;
  /**
   * facts.put: an added fact whose id was there replaced it in its place in the table's order
   * (other mutations remove facts before adding theirs, which go to the end), so an index
   * that follows the table's order can keep it.
   */
  readonly inPlace?: boolean;
  /** The document a document.put or document.delete wrote, for an index of documents. */
  readonly document?: string;
}

export class ServerState {
  readonly banks = new Map<string, BankState>();
  /** operation id -> bank id, across banks: an operation_id is unique server-wide (409 on reuse). */
  readonly operationBank = new Map<string, string>();
  /** The segment files the tables' stored records point into (undefined: none yet). */
  private stored: StoredRecords | undefined;

  /** Points stored record numbers at `stored` from now on (after a segment is loaded or written). */
  useStored(stored: StoredRecords | undefined): void {
    this.stored = stored;
  }

  storedRecords(): StoredRecords | undefined {
    return this.stored;
  }

  private readStored<T>(at: number, is: (u: unknown) => u is T, kind: string): T {
    if (this.stored === undefined) throw new Error(`store: stored ${kind} ${at} read with no segment loaded`);
    return this.stored.read(at, is, kind);
  }

  private newBankState(bank: BankRecord): BankState {
    return {
      bank,
      documents: new RecordTable((at) => this.readStored(at, DocumentRecord.is, 'document')),
      chunks: new RecordTable((at) => this.readStored(at, ChunkRecord.is, 'chunk')),
      facts: new FactTable(
        // Written out: io-ts's guard cost as much as the record's JSON.parse (a recall reads ~90).
        (at) => this.readStored(at, isFactRecord, 'fact'),
        (fact) => fact,
        (at) => this.stored?.head(at),
      ),
      factsByDocument: new DeferredMap(),
      chunksByDocument: new DeferredMap(),
      operations: new Map(),
      records: new Map(),
      fillInSlices: () => Promise.resolve(),
      storedDocument: () => undefined,
    };
  }

  /**
   * Restores a bank from a segment's footer: its records stay in the files until read. The facts
   * are listed at once (a recall needs them); the documents, chunks and the lists per document
   * when one of them is first used, since a start-up followed by recalls never needs them.
   */
  restoreBank(footer: BankHead): void {
    const state = this.newBankState(footer.bank);
    this.banks.set(footer.bank.bank_id, state);
    const chunksAt = footer.at + footer.documentCount;
    state.facts.restoreStored(footer.facts, chunksAt + footer.chunkCount);
    // The lists are read in the first step, before any entry is made: if that throws, nothing is
    // made and the next use starts again. Entries are put without making the maps first (`put`),
    // since the maps stay deferred until the last step.
    function* fillSteps(): Generator<void> {
      const lists = footer.documentLists();
      for (let i = 0; i < lists.documents.length; i++) {
        state.documents.putStored(lists.documents[i] ?? '', footer.at + i);
        if (i % FILL_STEP === FILL_STEP - 1) yield;
      }
      let chunk = 0;
      let fact = 0;
      for (let i = 0; i < lists.documents.length; i++) {
        const documentId = lists.documents[i] ?? '';
        const chunks = lists.documentChunks[i] ?? 0;
        const ids = lists.chunks.slice(chunk, chunk + chunks);
        ids.forEach((id, j) => state.chunks.putStored(id, chunksAt + chunk + j));
        state.chunksByDocument.put(documentId, ids);
        chunk += chunks;
        const facts = lists.documentFacts[i] ?? 0;
        state.factsByDocument.put(documentId, footer.facts.slice(fact, fact + facts));
        fact += facts;
        if (i % FILL_STEP === FILL_STEP - 1) yield;
      }
    }
    let steps: Generator<void> | undefined;
    let filled = false;
    /** Runs the fill to its end (or makes `slices` more steps of it); true once it has ended. */
    const fillSome = (slices: number): boolean => {
      if (filled) return true;
      steps ??= fillSteps();
      try {
        for (let n = 0; n < slices; n++) {
          if (steps.next().done === true) {
            filled = true;
            return true;
          }
        }
        return false;
      } catch (error) {
        steps = undefined;
        throw error;
      }
    };
    const restoreDocuments = (): void => {
      fillSome(Number.POSITIVE_INFINITY);
    };
    state.fillInSlices = async (slice?: SliceTimer): Promise<void> => {
      await runSliced(
        (function* (): Generator<void> {
          while (!fillSome(1)) yield;
        })(),
        slice,
      );
    };
    // Their sizes are the footer's counts: a bank's stats need no table made.
    state.documents.defer(restoreDocuments, footer.documentCount);
    state.storedDocument = (index: number): DocumentRecord | undefined =>
      state.documents.deferred && index >= 0 && index < footer.documentCount ? this.readStored(footer.at + index, DocumentRecord.is, 'document') : undefined;
    state.chunks.defer(restoreDocuments, footer.chunkCount);
    state.chunksByDocument.defer(restoreDocuments);
    state.factsByDocument.defer(restoreDocuments);
    for (const operation of footer.operations) {
      state.operations.set(operation.id, operation);
      this.operationBank.set(operation.id, operation.bank_id);
    }
    for (const [kind, id, value] of footer.records) {
      let byKind = state.records.get(kind);
      if (byKind === undefined) {
        byKind = new Map();
        state.records.set(kind, byKind);
      }
      byKind.set(id, value);
    }
  }

  /** Applies one mutation; returns the fact changes it made. Mutations on a missing bank create it implicitly only via bank.put. */
  apply(m: Mutation): FactChange | undefined {
    const change = this.applyOne(m);
    if (change !== undefined && change.bankDeleted !== true && (change.added.length > 0 || change.removed.length > 0 || change.document !== undefined)) {
      this.banks.get(change.bankId)?.records.delete(COVERED_KIND);
    }
    return change;
  }

  private applyOne(m: Mutation): FactChange | undefined {
    switch (m.type) {
      case 'bank.put': {
        const existing = this.banks.get(m.bank.bank_id);
        if (existing === undefined) this.banks.set(m.bank.bank_id, this.newBankState(m.bank));
        else existing.bank = m.bank;
        return undefined;
      }
      case 'bank.delete': {
        const state = this.banks.get(m.bank_id);
        if (state === undefined) return undefined;
        for (const id of state.operations.keys()) this.operationBank.delete(id);
        this.banks.delete(m.bank_id);
        return { bankId: m.bank_id, added: [], removed: [...state.facts.values()], bankDeleted: true };
      }
      case 'document.put': {
        const state = this.requireBank(m.bank_id);
        const removed = this.dropDocument(state, m.document.id);
        state.documents.set(m.document.id, m.document);
        state.chunksByDocument.set(
          m.document.id,
          m.chunks.map((c) => c.id),
        );
        for (const c of m.chunks) state.chunks.set(c.id, c);
        state.factsByDocument.set(
          m.document.id,
          m.facts.map((f) => f.id),
        );
        for (const f of m.facts) state.facts.set(f.id, f);
        return { bankId: m.bank_id, added: m.facts, removed, document: m.document.id };
      }
      case 'document.delete': {
        const state = this.banks.get(m.bank_id);
        if (state === undefined) return undefined;
        const removed = this.dropDocument(state, m.document_id);
        state.documents.delete(m.document_id);
        return { bankId: m.bank_id, added: [], removed, document: m.document_id };
      }
      case 'facts.put': {
        const state = this.requireBank(m.bank_id);
        const removed: FactRecord[] = [];
        for (const f of m.facts) {
          const old = state.facts.get(f.id);
          if (old !== undefined) removed.push(old);
          state.facts.set(f.id, f);
        }
        return { bankId: m.bank_id, added: m.facts, removed, inPlace: true };
      }
      case 'facts.delete': {
        const state = this.banks.get(m.bank_id);
        if (state === undefined) return undefined;
        const removed: FactRecord[] = [];
        for (const id of m.ids) {
          const old = state.facts.get(id);
          if (old === undefined) continue;
          removed.push(old);
          state.facts.delete(id);
          if (old.document_id !== null) {
            const list = state.factsByDocument.get(old.document_id);
            if (list !== undefined) state.factsByDocument.set(old.document_id, list.filter((x) => x !== id));
          }
        }
        return { bankId: m.bank_id, added: [], removed };
      }
      case 'operation.put': {
        const state = this.requireBank(m.operation.bank_id);
        state.operations.set(m.operation.id, m.operation);
        this.operationBank.set(m.operation.id, m.operation.bank_id);
        return undefined;
      }
      case 'operation.delete': {
        this.banks.get(m.bank_id)?.operations.delete(m.operation_id);
        this.operationBank.delete(m.operation_id);
        return undefined;
      }
      case 'record.put': {
        const state = this.requireBank(m.bank_id);
        let kind = state.records.get(m.kind);
        if (kind === undefined) {
          kind = new Map();
          state.records.set(m.kind, kind);
        }
        kind.set(m.id, m.value);
        return undefined;
      }
      case 'record.delete': {
        this.banks.get(m.bank_id)?.records.get(m.kind)?.delete(m.id);
        return undefined;
      }
    }
  }

  private requireBank(bankId: string): BankState {
    const state = this.banks.get(bankId);
    // The store always writes bank.put before anything else in a bank; a log without it is corrupt.
    if (state === undefined) throw new Error(`store: mutation for bank "${bankId}" before the bank was created`);
    return state;
  }

  private dropDocument(state: BankState, documentId: string): FactRecord[] {
    const removed: FactRecord[] = [];
    for (const id of state.factsByDocument.get(documentId) ?? []) {
      const f = state.facts.get(id);
      if (f !== undefined) removed.push(f);
      state.facts.delete(id);
    }
    for (const id of state.chunksByDocument.get(documentId) ?? []) state.chunks.delete(id);
    state.factsByDocument.delete(documentId);
    state.chunksByDocument.delete(documentId);
    return removed;
  }
}
