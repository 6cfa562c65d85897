/**
 * Whether a mental model may be out of date. The single read is exact: a fact in the
 * model's refresh scope (tags and fact types) written after its last refresh. The tree view
 * is the cheap bank-wide version: anything written to the bank since then.
 */
import type { BankState } from '../store/state.js';
import { matchesTagFilter } from '../recall/tagFilter.js';
import type { MentalModelRecord } from './mentalModels.js';
import { refreshScope } from './trigger.js';

export const modelIsStale = (bank: BankState | undefined, model: MentalModelRecord): boolean => {
  const refreshed = model.last_refreshed_at;
  if (refreshed === undefined) return true;
  if (bank === undefined) return false;
  const scope = refreshScope(model.tags, model.trigger);
  const filter = { tags: scope.tags ?? null, tagsMatch: scope.tagsMatch, tagGroups: scope.tagGroups ?? null };
  const types = model.trigger.fact_types;
  for (const fact of bank.facts.values()) {
    if (fact.created_at <= refreshed) continue;
    if (types !== undefined && !types.includes(fact.fact_type)) continue;
    if (matchesTagFilter(filter, fact.tags)) return true;
  }
  return false;
};

export const bankWrittenSince = (bank: BankState | undefined, refreshedAt: string | undefined): boolean => {
  if (refreshedAt === undefined) return true;
  const lastWrite = bank?.bank.last_write_at;
  return lastWrite !== undefined && lastWrite > refreshedAt;
};
