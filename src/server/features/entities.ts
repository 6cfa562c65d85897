/**
 * The bank's entities, derived from its facts (each fact names its own entities, given at
 * retain or found by the deterministic extractor): one entity per case-insensitive name, with
 * the facts that mention it. Invalidated facts mention nothing, as upstream unlinks them. The
 * bank's fact index (`factIndex.ts`) derives them; here are their id, shape and order.
 */
import { createHash } from 'node:crypto';
import type { FactRecord } from '../store/model.js';

/** A stable UUID-shaped id per bank and name, so ids survive restarts without being stored. */
export const entityId = (bankId: string, name: string): string => {
  const hex = createHash('sha256').update(`${bankId}\u0000${name.toLowerCase()}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

export interface BankEntity {
  readonly id: string;
  readonly canonicalName: string;
  readonly factIds: string[];
  firstSeen: string | undefined;
  lastSeen: string | undefined;
}

export const isLive = (fact: Pick<FactRecord, 'state'>): boolean => fact.state !== 'invalidated';

/** Most mentioned first, then most recently seen, then id (upstream's order). */
export const byMentions = (a: BankEntity, b: BankEntity): number =>
  b.factIds.length - a.factIds.length || (b.lastSeen ?? '').localeCompare(a.lastSeen ?? '') || a.id.localeCompare(b.id);

/** Two entities named by the same facts, with how often and when last. */
export interface Cooccurrence {
  readonly source: string;
  readonly target: string;
  count: number;
  last: string;
}
