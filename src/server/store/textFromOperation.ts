/**
 * A document an async retain writes holds the text its operation's record already put in the
 * log (the acknowledged request's payload): on disk its `document.put` may name that payload's
 * item instead of copying the text, so the text is written once. Replay reads it back from the
 * operation as the state holds it at that point of the log, which is why a reference is only
 * written when nothing between the state it was checked against and its own line can change
 * that operation (`textRefFor`).
 */
import type { Mutation, OperationRecord } from './model.js';

/** Where a document's text is: item `item` of operation `operationId`'s payload (same bank). */
export interface TextSource {
  readonly operationId: string;
  readonly item: number;
}

/** On disk, in place of `original_text`. */
export interface TextRef {
  readonly operation_id: string;
  readonly item: number;
}

/** The content of item `item` of an operation's retain payload (`{ items: [{ content }] }`), if it has one. */
export const operationItemText = (operation: OperationRecord | undefined, item: number): string | undefined => {
  const payload = operation?.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const items = payload['items'];
  if (!Array.isArray(items)) return undefined;
  const entry = items[item];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const content = entry['content'];
  return typeof content === 'string' ? content : undefined;
};

/**
 * The operations and banks that mutations may change or remove: those queued to the log and not
 * yet applied (any may land before a new commit), then each of a commit's own as it is encoded.
 * Sets, so a commit's check costs its own size plus the queued commits', once.
 */
export class TouchedOperations {
  private readonly operations = new Set<string>();
  private readonly deletedBanks = new Set<string>();

  add(m: Mutation): void {
    if (m.type === 'operation.put') this.operations.add(m.operation.id);
    else if (m.type === 'operation.delete') this.operations.add(m.operation_id);
    else if (m.type === 'bank.delete') this.deletedBanks.add(m.bank_id);
  }

  has(bankId: string, operationId: string): boolean {
    return this.operations.has(operationId) || this.deletedBanks.has(bankId);
  }
}

/**
 * The reference to write for document `m`, or undefined to write its text. `operation` is the
 * operation `source` names as the applied state holds it; `touched` holds every mutation that
 * may come before `m` in the log (queued and not yet applied, or earlier in the same commit).
 * The reference is written only if the operation's item holds exactly the document's text and
 * none of those touches the operation: replay then finds the same text where this found it.
 */
export const textRefFor = (
  m: Extract<Mutation, { type: 'document.put' }>,
  source: TextSource | undefined,
  operation: OperationRecord | undefined,
  touched: TouchedOperations,
): TextRef | undefined => {
  const text = m.document.original_text;
  if (source === undefined || text === null || operation === undefined || operation.bank_id !== m.bank_id) return undefined;
  if (touched.has(m.bank_id, source.operationId)) return undefined;
  if (operationItemText(operation, source.item) !== text) return undefined;
  return { operation_id: source.operationId, item: source.item };
};
