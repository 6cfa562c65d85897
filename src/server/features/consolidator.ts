/**
 * Keeps each bank's observation facts in step with its world/experience facts. A change to
 * source facts marks the bank dirty. A small bank is then consolidated (a) in the background
 * after writes settle, and (b) before any read that needs observations (`ensureFresh`), so a
 * recall right after a sync retain already sees them. A large bank (`backgroundLimit`) is
 * never waited for: a read that needs observations asks for a pass, which runs in the
 * background, spaced by its cost. Results are written as ordinary `observation` facts through
 * the store (durable, indexed by recall like any fact); only the diff is written. Banks are
 * marked dirty at start-up, since a crash may have come between a retain and its consolidation,
 * unless their last pass's marker is still there: a completed pass writes it with its result (one
 * commit), and the store drops it on any change to the bank's facts (`COVERED_KIND`), so a restart
 * after nothing changed does not read the whole bank again.
 */
import { ObservationInput, consolidateInput, diffObservations } from './observations.js';
import { performance } from 'node:perf_hooks';
import { isLive } from './entities.js';
import { runSliced } from '../slices.js';
import type { Observation, ObservationScopes, ObservationSourceFact } from './observations.js';
import type { DocumentRecord, FactRecord, Mutation } from '../store/model.js';
import type { JsonValue } from '../../codecs/codecs.js';
import type { BankState } from '../store/state.js';
import type { ServerStore } from '../store/store.js';
import { ObservationScopes as ObservationScopeCodec } from '../../codecs/retainItem.js';
import { COVERED_KIND } from '../store/state.js';
import { observationCodeId } from './observationCode.js';

/** The bank's marker (in records of `COVERED_KIND`): the observations cover its facts as they are. */
const PASS_MARKER = 'observations';

/**
 * What the marker holds: the code that computed the observations, and the bank's fact count and
 * last write time when they were written. The store drops the marker on any change to the facts;
 * the count and time also catch writes by a build from before markers (which keeps the record but
 * does not drop it) after a newer one wrote it.
 */
const markerValue = (code: string, bank: BankState, facts: number): JsonValue => ({ code, facts, last_write_at: bank.bank.last_write_at ?? null });

const sameMarker = (a: JsonValue | undefined, b: JsonValue): boolean => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** True when the bank's observations are what a pass of this code over its facts as they are gives. */
const coveredNow = (bank: BankState): boolean => {
  const code = observationCodeId();
  return code !== null && sameMarker(bank.records.get(COVERED_KIND)?.get(PASS_MARKER), markerValue(code, bank, bank.facts.size));
};

/**
 * The marker a completed pass writes after its result, for the bank as the commit leaves it
 * (`facts` facts): none when this code cannot be named, or when the pass writes nothing and the
 * marker is there already (writing observations drops it).
 */
const markerOf = (bankId: string, bank: BankState, writes: boolean, facts: number): Mutation[] => {
  const code = observationCodeId();
  if (code === null) return [];
  const value = markerValue(code, bank, facts);
  if (!writes && sameMarker(bank.records.get(COVERED_KIND)?.get(PASS_MARKER), value)) return [];
  return [{ type: 'record.put', bank_id: bankId, kind: COVERED_KIND, id: PASS_MARKER, value }];
};

export interface Consolidator {
  /** Brings `bankId`'s observations up to date; resolves at once when nothing changed. */
  ensureFresh(bankId: string): Promise<void>;
  /** True when the bank has source-fact changes not yet consolidated. */
  isDirty(bankId: string): boolean;
  /**
   * How many of the bank's source facts (world/experience) were written since the last pass
   * that took them in: the stats' `pending_consolidation`, which drains to 0 as upstream's does.
   */
  pendingCount(bankId: string): number;
  /** Passes begun over the bank since this server started (`/metrics`): none after a start that found its marker. */
  passCount(bankId: string): number;
  close(): Promise<void>;
}

export interface ConsolidatorOptions {
  readonly store: ServerStore;
  readonly nowIso: () => string;
  /**
   * Quiet time after the last write before background consolidation (default 1 s: async
   * retains are applied in batches when requests pause, and a bulk import's batches came
   * more than 200 ms apart, so each one paid a pass over the whole bank).
   */
  readonly settleMs?: number;
  /**
   * Banks with more facts than this are large: a pass costs about 70 us a fact (0.7-1 s at 10k,
   * 3.4 s at 100k, over a minute and a gigabyte at 1M), against the automatic recall's 1.5 s
   * deadline, so a read does not wait for it. It answers with the observations the bank has and
   * asks for a pass, which runs in the background in slices (upstream consolidates
   * asynchronously too). Only a read that wants observations asks: writes and start-up do not,
   * so a large bank nobody asks observations of never pays for them. Smaller banks are brought up
   * to date before a read, a pass of about 0.15 s at most (default 2,000).
   */
  readonly backgroundLimit?: number;
  /**
   * Least time between two passes over one large bank (default 60 s), and at least
   * `LARGE_PASS_SPACING` times the last pass's own length, so passes take a bounded share of
   * the server's time however large the bank.
   */
  readonly largeBankIntervalMs?: number;
  /**
   * True while the bank has writes waiting to be applied (async retains): background
   * consolidation waits for them, since each pass reads the whole bank (default: never).
   */
  readonly writesWaiting?: (bankId: string) => boolean;
  /** Called after a consolidation changed a bank's observations (outside the bank's exclusive section). */
  readonly onConsolidated?: (bankId: string) => Promise<void>;
}

/** The observation scopes a document was retained with (recorded in its retain_params). */
const scopesOfRecord = (document: DocumentRecord | undefined): ObservationScopes | undefined => {
  const value = document?.retain_params['observation_scopes'];
  // The retain codec's own check: one of the named scopes, or lists of tags.
  return ObservationScopeCodec.is(value) ? value : undefined;
};

const scopesOfDocument = (bank: BankState, documentId: string | null): ObservationScopes | undefined =>
  documentId === null ? undefined : scopesOfRecord(bank.documents.get(documentId));

/**
 * The scopes of the documents retained with some, read from the segment a document at a time
 * while a restored bank's documents table is not made: the pass made it (in slices) to look its
 * facts' documents up, about 330 MB at 1M kept for the server's life. Undefined when the table is
 * made, or is made meanwhile (the pass then reads it).
 */
const storedDocumentScopes = (bank: BankState): Promise<Map<string, ObservationScopes> | undefined> =>
  runSliced(
    (function* (): Generator<undefined, Map<string, ObservationScopes> | undefined> {
      if (!bank.documents.deferred) return undefined;
      const scopes = new Map<string, ObservationScopes>();
      const count = bank.documents.size;
      for (let i = 0; i < count; i++) {
        yield undefined;
        const document = bank.storedDocument(i);
        if (document === undefined) return undefined;
        const scope = scopesOfRecord(document);
        if (scope !== undefined) scopes.set(document.id, scope);
      }
      return scopes;
    })(),
  );

/**
 * The fact's entity texts of one type, or none. PERSON: names the extractor guessed from a capital
 * alone (a caller's own are CONCEPT unless it says); TOOL: tool names found in the fact's words
 * ("go", "make"), which may be the words themselves.
 */
const entityTextsOf = (fact: FactRecord, type: 'PERSON' | 'TOOL'): ReadonlySet<string> | undefined => {
  const texts = (fact.entities ?? []).filter((e) => e.type === type).map((e) => e.text);
  return texts.length === 0 ? undefined : new Set(texts);
};

/**
 * `id` is the fact table's own key: the pass keeps it, not the copy read with the record. `scopes`:
 * the documents' scopes read beforehand (else the documents table is looked in).
 */
const sourceOf = (bank: BankState, id: string, fact: FactRecord, scopes: ReadonlyMap<string, ObservationScopes> | undefined): ObservationSourceFact => ({
  id,
  text: fact.text,
  type: fact.fact_type,
  tags: fact.tags,
  entities: (fact.entities ?? []).map((e) => e.text),
  guessedNames: entityTextsOf(fact, 'PERSON'),
  guessedTools: entityTextsOf(fact, 'TOOL'),
  observationScopes: scopes === undefined ? scopesOfDocument(bank, fact.document_id) : fact.document_id === null ? undefined : scopes.get(fact.document_id),
  mentionedAt: fact.mentioned_at ?? null,
});

/** An observation fact back into the shape consolidation compares. */
const asObservation = (fact: FactRecord): Observation => ({
  id: fact.id,
  key: '',
  text: fact.text,
  tags: fact.tags,
  sourceFactIds: fact.source_fact_ids ?? [],
  proofCount: (fact.source_fact_ids ?? []).length,
  mentionedAt: fact.mentioned_at ?? null,
});

const toFact = (o: Observation, createdAt: string): FactRecord => ({
  id: o.id,
  text: o.text,
  fact_type: 'observation',
  document_id: null,
  chunk_id: null,
  tags: [...o.tags],
  created_at: createdAt,
  source_fact_ids: [...o.sourceFactIds],
  ...(o.mentionedAt === null ? {} : { mentioned_at: o.mentionedAt }),
});

/** A large bank's passes are spaced at least this many times a pass's own length apart (at most 1/20 of the time). */
const LARGE_PASS_SPACING = 20;

export const createConsolidator = (options: ConsolidatorOptions): Consolidator => {
  const { store, nowIso } = options;
  const settleMs = options.settleMs ?? 1_000;
  const backgroundLimit = options.backgroundLimit ?? 2_000;
  const largeBankIntervalMs = options.largeBankIntervalMs ?? 60_000;
  const dirty = new Set<string>();
  /** When each large bank may next be passed over (wall time). */
  const nextLargePass = new Map<string, number>();
  const inBackground = new Set<string>();
  /** Large banks a read has asked observations of since their last pass began. */
  const asked = new Set<string>();
  const isLarge = (bankId: string): boolean => (store.bank(bankId)?.facts.size ?? 0) > backgroundLimit;
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  /** Fact changes seen per bank: a consolidation run in slices checks nothing changed under it. */
  const changes = new Map<string, number>();
  const passes = new Map<string, number>();
  /**
   * Source facts written since the last pass began, per bank, and those a running pass is taking
   * in (back to pending if its result is thrown away). Kept as ids, so a fact written twice counts
   * once and a deleted one drops out: the count costs nothing to read.
   */
  const pending = new Map<string, Set<string>>();
  const inPass = new Map<string, Set<string>>();
  const idsOf = (sets: Map<string, Set<string>>, bankId: string): Set<string> => {
    let ids = sets.get(bankId);
    if (ids === undefined) {
      ids = new Set();
      sets.set(bankId, ids);
    }
    return ids;
  };
  /** A pass that did not write its result leaves what it took in pending again. */
  const backToPending = (bankId: string): void => {
    const taken = inPass.get(bankId);
    inPass.delete(bankId);
    if (taken === undefined || store.bank(bankId) === undefined) return;
    const ids = idsOf(pending, bankId);
    for (const id of taken) ids.add(id);
  };
  let closed = false;

  /** One pass worked out from the bank as it was (`seen` changes in); written only if it still is. */
  interface Pass {
    readonly bank: BankState;
    readonly seen: number;
    readonly previous: readonly Observation[];
    readonly next: readonly Observation[];
    /** When each observation was first written, kept across its rebuilds. */
    readonly created: ReadonlyMap<string, string>;
  }

  const computePass = async (bankId: string): Promise<Pass | undefined> => {
    if (!dirty.has(bankId)) return undefined;
    // Cleared first: a write landing while this runs marks the bank again.
    dirty.delete(bankId);
    const bank = store.bank(bankId);
    if (bank === undefined) return undefined;
    passes.set(bankId, (passes.get(bankId) ?? 0) + 1);
    backToPending(bankId);
    const taking = pending.get(bankId);
    pending.delete(bankId);
    if (taking !== undefined) inPass.set(bankId, taking);
    const seen = changes.get(bankId) ?? 0;
    // Every fact is read, and its terms found, in slices: a large bank's facts are read from
    // disk (0.4 s at 100k in one go held every request that long), and other requests are
    // served meanwhile. What grouping needs of a fact's text is worked out as it is read and the
    // text dropped (`ObservationInput`): the texts of the facts a kept group quotes are read again.
    // Each source's scopes are its document's: a restored bank's documents are read for them one
    // at a time; if that table is made, it is read, made in slices first (made in one go at 1M
    // it held every request for 8-14 s).
    const scopes = await storedDocumentScopes(bank);
    if (scopes === undefined) await bank.fillInSlices();
    const input = new ObservationInput();
    const previous: Observation[] = [];
    const created = new Map<string, string>();
    const ids = [...bank.facts.keys()];
    await runSliced(
      (function* (): Generator<undefined> {
        for (const id of ids) {
          yield undefined;
          const fact = bank.facts.get(id);
          if (fact === undefined) continue;
          if (fact.fact_type === 'observation') {
            previous.push(asObservation(fact));
            created.set(fact.id, fact.created_at);
          } else if (isLive(fact)) {
            // An invalidated fact is out of consolidation's reach, as in upstream's archive: the
            // observations built from it go with the diff, and come back if it is reverted.
            input.add(sourceOf(bank, id, fact, scopes));
          }
        }
      })(),
    );
    // A fact gone or rewritten since it was read makes the result stale whatever it quotes: the
    // change is counted (`seen`) and the result thrown away.
    const textOf = (n: number): string => bank.facts.get(input.ids[n] ?? '')?.text ?? '';
    const next = await runSliced(consolidateInput(input, textOf, { bankId }));
    return { bank, seen, previous, next, created };
  };

  /** Resolves true when observations changed. */
  const applyPass = async (bankId: string, pass: Pass): Promise<boolean> => {
    const { bank, seen, previous, next, created } = pass;
    // The scopes ran in slices: facts that changed meanwhile (a write outside this bank's
    // exclusive section, a bank deleted) make this result stale; the next run redoes it.
    if ((changes.get(bankId) ?? 0) !== seen || store.bank(bankId) !== bank) {
      backToPending(bankId);
      if (store.bank(bankId) !== undefined) markDirty(bankId);
      return false;
    }
    const diff = diffObservations(previous, next);
    const writes = diff.upserts.length > 0 || diff.deletes.length > 0;
    const now = nowIso();
    // The marker goes last in the same commit (one log line, applied whole or not at all): a
    // restart finds both the result and the marker, or neither and passes over the bank again.
    // The check above and this commit run in the bank's exclusive section, as every write of
    // facts does, so no fact change lands between them to be covered by a marker unseen.
    await store.commit([
      ...(diff.deletes.length > 0 ? [{ type: 'facts.delete' as const, bank_id: bankId, ids: [...diff.deletes] }] : []),
      ...(diff.upserts.length > 0
        ? [{ type: 'facts.put' as const, bank_id: bankId, facts: diff.upserts.map((o) => toFact(o, created.get(o.id) ?? now)) }]
        : []),
      // After the commit the bank's observations are exactly `next`.
      ...markerOf(bankId, bank, writes, bank.facts.size - previous.length + next.length),
    ]);
    // What the pass took in is covered (written, or as it was).
    inPass.delete(bankId);
    return writes;
  };

  /**
   * A small bank's pass holds the bank's exclusive section throughout (a read waits for it, and
   * gets what it waited for). A large bank's is worked out outside it, since its seconds would
   * hold up the bank's writes, async retains' acknowledgements included; only the write of its
   * result takes the section, and a write that came meanwhile makes it wait for the next pass.
   */
  const runPass = async (bankId: string, large: boolean): Promise<boolean> => {
    try {
      if (!large) {
        return await store.exclusive(bankId, async () => {
          const pass = await computePass(bankId);
          return pass === undefined ? false : applyPass(bankId, pass);
        });
      }
      const pass = await computePass(bankId);
      return pass === undefined ? false : await store.exclusive(bankId, () => applyPass(bankId, pass));
    } catch (error) {
      // A failed pass covered nothing (the bank stays dirty and is passed over again).
      backToPending(bankId);
      throw error;
    }
  };

  const track = (work: Promise<void>): Promise<void> => {
    running.add(work);
    void work.finally(() => running.delete(work));
    return work;
  };

  const consolidateNow = (bankId: string, large: boolean): Promise<void> => {
    const timer = timers.get(bankId);
    if (timer !== undefined) {
      clearTimeout(timer);
      timers.delete(bankId);
    }
    const onConsolidated = options.onConsolidated;
    return track(
      runPass(bankId, large).then(async (changed) => {
        if (changed && onConsolidated !== undefined && !closed) await onConsolidated(bankId);
      }),
    );
  };

  const inTheBackground = (bankId: string, large: boolean): void => {
    inBackground.add(bankId);
    asked.delete(bankId);
    const started = performance.now();
    consolidateNow(bankId, large)
      .catch((error: unknown) => {
        // The bank stays dirty, so the next observation read or write retries.
        dirty.add(bankId);
        console.error(`embedded server: observation consolidation failed for bank ${bankId}: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        inBackground.delete(bankId);
        const ended = performance.now();
        if (large) nextLargePass.set(bankId, started + Math.max(largeBankIntervalMs, LARGE_PASS_SPACING * (ended - started)));
        // Written to while the pass ran: one more pass (a large bank's only if a read asked meanwhile).
        if (dirty.has(bankId) && !closed && !timers.has(bankId) && (!large || asked.has(bankId))) schedule(bankId, large ? 0 : settleMs);
      });
  };

  /** A pass for `bankId` once `delayMs` has gone by with no new write (a write restarts the wait). */
  const schedule = (bankId: string, delayMs: number): void => {
    if (closed) return;
    const previous = timers.get(bankId);
    if (previous !== undefined) clearTimeout(previous);
    const timer = setTimeout(() => {
      timers.delete(bankId);
      if (!dirty.has(bankId) || inBackground.has(bankId)) return;
      // More writes are coming: one pass after them, not one between every two of their batches.
      if (options.writesWaiting?.(bankId) === true) {
        schedule(bankId, settleMs);
        return;
      }
      const large = isLarge(bankId);
      if (large) {
        // Scheduled while it was small: a large bank waits for a read that wants observations.
        if (!asked.has(bankId)) return;
        const wait = (nextLargePass.get(bankId) ?? Number.NEGATIVE_INFINITY) - performance.now();
        if (wait > 0) {
          schedule(bankId, wait);
          return;
        }
      }
      inTheBackground(bankId, large);
    }, delayMs);
    timer.unref();
    timers.set(bankId, timer);
  };

  const ensureFresh = (bankId: string): Promise<void> => {
    if (!dirty.has(bankId)) return Promise.resolve();
    if (isLarge(bankId)) {
      // Answered with the observations the bank has; a pass follows when the spacing allows.
      asked.add(bankId);
      if (!timers.has(bankId) && !inBackground.has(bankId)) schedule(bankId, 0);
      return Promise.resolve();
    }
    return consolidateNow(bankId, false);
  };

  const markDirty = (bankId: string): void => {
    dirty.add(bankId);
    // A large bank is passed over when a read asks for observations, not after every write.
    if (!isLarge(bankId)) schedule(bankId, settleMs);
  };

  const unsubscribe = store.onFactChange((change) => {
    changes.set(change.bankId, (changes.get(change.bankId) ?? 0) + 1);
    if (change.bankDeleted === true) {
      pending.delete(change.bankId);
      inPass.delete(change.bankId);
      dirty.delete(change.bankId);
      const timer = timers.get(change.bankId);
      if (timer !== undefined) clearTimeout(timer);
      timers.delete(change.bankId);
      return;
    }
    const touchesSources = change.added.some((f) => f.fact_type !== 'observation') || change.removed.some((f) => f.fact_type !== 'observation');
    if (touchesSources) {
      const written = idsOf(pending, change.bankId);
      for (const f of change.removed) {
        written.delete(f.id);
        inPass.get(change.bankId)?.delete(f.id);
      }
      for (const f of change.added) if (f.fact_type !== 'observation') written.add(f.id);
      markDirty(change.bankId);
    }
  });

  // A bank whose marker is still there has had no fact written since its last pass completed.
  for (const [bankId, bank] of store.state.banks) if (bank.facts.size > 0 && !coveredNow(bank)) markDirty(bankId);

  return {
    ensureFresh,
    isDirty: (bankId) => dirty.has(bankId),
    pendingCount: (bankId) => (pending.get(bankId)?.size ?? 0) + (inPass.get(bankId)?.size ?? 0),
    passCount: (bankId) => passes.get(bankId) ?? 0,
    close: async () => {
      closed = true;
      unsubscribe();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
};
