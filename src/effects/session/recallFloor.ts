/**
 * The precision floor of automatic recall: memory is injected only when the server is sure
 * enough that it answers the prompt, so a prompt nothing in memory answers ("write a haiku
 * about autumn") gets no block. The embedded server's `scores.final` is absolute (0-1: how
 * much of the prompt the bank and its best match cover, docs/recall.md), so one floor holds
 * across prompts. A server that sends no scores is not floored. The gate is per bank and on
 * the best result: the results under it are kept, as the ranking ordered them.
 */

/**
 * Chosen on the recall-quality bench (docs/recall.md, the floor table): 0.4 keeps 82% of the
 * off-topic prompts quiet while what it injects still holds LoCoMo R@10 at 80%. Higher floors
 * trade injected answers for quiet: 0.35 keeps 78% quiet, 0.45 keeps 85% but floors 6 more of
 * the 42 coding facts and takes injected R@10 under 80%.
 */
export const RECALL_FLOOR = 0.4;

/** Why one result was or was not injected, as the trace and last-recall.json show it. */
export interface RecallResultReport {
  readonly bankId: string;
  readonly id: string;
  /** The server's `scores.final`, if it sent one. */
  readonly score: number | null;
  readonly keyword: number | null;
  /** The server's ranking stage that found it (embedded server), if it said. */
  readonly stage: string | null;
  /** Its bank cleared the floor, so it was offered to the block (which shows 8 a bank, skipping repeats). */
  readonly passedFloor: boolean;
}

export interface ScoredHit {
  readonly id: string;
  readonly scores?: { readonly final: number; readonly keyword?: number | null } | null;
  readonly stage?: string | null;
}

/** Whether a bank's results clear the floor: their best final score does, or none has a score. */
export const clearsFloor = (hits: readonly ScoredHit[], floor: number = RECALL_FLOOR): boolean => {
  const scored = hits.flatMap((h) => (h.scores === undefined || h.scores === null ? [] : [h.scores.final]));
  return scored.length === 0 || Math.max(...scored) >= floor;
};

export const resultReports = (bankId: string, hits: readonly ScoredHit[], passedFloor: boolean): RecallResultReport[] =>
  hits.map((h) => ({
    bankId,
    id: h.id,
    score: h.scores?.final ?? null,
    keyword: h.scores?.keyword ?? null,
    stage: h.stage ?? null,
    passedFloor,
  }));
