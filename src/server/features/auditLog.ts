/**
 * The audit log: every successful request on a bank that upstream audits (retain, recall,
 * reflect, edits, deletes, config changes), by upstream's action name, with when it started
 * and ended. Kept in memory, newest last, capped per bank so a long-running server does not
 * grow without bound; it starts empty after a restart (the store itself is the durable record
 * of what changed).
 */
export interface AuditEntry {
  readonly id: string;
  readonly action: string;
  readonly transport: 'http';
  readonly bank_id: string;
  readonly started_at: string;
  readonly ended_at: string;
  readonly duration_ms: number;
  readonly request: Record<string, unknown>;
  readonly response: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

const CAP_PER_BANK = 10_000;

const BANK = String.raw`^/v1/default/banks/[^/]+`;
const ID = '[^/]+';
/** A document id may hold slashes (upstream's `{document_id:path}`). */
const DOC = '.+';

/**
 * The requests upstream audits, by its action names (its `@audited` routes, 0.9.1), most
 * specific first. Other requests are not audited there, and not here.
 */
const AUDITED: readonly (readonly [method: string, tail: string, action: string])[] = [
  ['POST', '/memories/recall', 'recall'],
  ['POST', '/memories', 'retain'],
  ['DELETE', '/memories', 'clear_memories'],
  ['DELETE', `/memories/${ID}/observations`, 'clear_memory_observations'],
  ['PATCH', `/memories/${ID}`, 'update_memory'],
  ['POST', '/files/retain', 'file_retain'],
  ['POST', '/reflect', 'reflect'],
  ['POST', '/mental-models', 'create_mental_model'],
  ['POST', `/mental-models/${ID}/refresh`, 'refresh_mental_model'],
  ['POST', `/mental-models/${ID}/dry-run-refresh`, 'dry_run_refresh_mental_model'],
  ['POST', `/mental-models/${ID}/clear`, 'clear_mental_model'],
  ['PATCH', `/mental-models/${ID}`, 'update_mental_model'],
  ['DELETE', `/mental-models/${ID}`, 'delete_mental_model'],
  ['POST', '/directives', 'create_directive'],
  ['PATCH', `/directives/${ID}`, 'update_directive'],
  ['DELETE', `/directives/${ID}`, 'delete_directive'],
  ['POST', `/documents/${DOC}/reprocess`, 'reprocess_document'],
  ['PATCH', `/documents/${DOC}`, 'update_document'],
  ['DELETE', `/documents/${DOC}`, 'delete_document'],
  ['DELETE', `/operations/${ID}/delete`, 'delete_operation'],
  ['DELETE', `/operations/${ID}`, 'cancel_operation'],
  ['POST', `/operations/${ID}/retry`, 'retry_operation'],
  ['PUT', '', 'create_bank'],
  ['PATCH', '', 'update_bank'],
  ['DELETE', '', 'delete_bank'],
  ['POST', '/import', 'import_bank_template'],
  ['POST', '/document-transfer', 'import_documents'],
  ['DELETE', '/observations', 'clear_observations'],
  ['POST', '/consolidation/recover', 'recover_consolidation'],
  ['PATCH', '/config', 'update_bank_config'],
  ['DELETE', '/config', 'reset_bank_config'],
  ['POST', '/consolidate', 'consolidation'],
  ['POST', '/webhooks', 'create_webhook'],
  ['PATCH', `/webhooks/${ID}`, 'update_webhook'],
  ['DELETE', `/webhooks/${ID}`, 'delete_webhook'],
];
const ACTIONS = AUDITED.map(([method, tail, action]) => [method, new RegExp(`${BANK}${tail}$`), action] as const);

/** Upstream's action name for a request, or undefined for one it does not audit. */
export const actionOf = (method: string, path: string): string | undefined => {
  for (const [m, pattern, action] of ACTIONS) if (m === method && pattern.test(path)) return action;
  return undefined;
};

export class AuditLog {
  private readonly byBank = new Map<string, AuditEntry[]>();
  private next = 0;

  record(entry: Omit<AuditEntry, 'id' | 'transport'>): void {
    this.next += 1;
    const list = this.byBank.get(entry.bank_id) ?? [];
    list.push({ ...entry, id: `audit-${this.next}`, transport: 'http' });
    if (list.length > CAP_PER_BANK) list.splice(0, list.length - CAP_PER_BANK);
    this.byBank.set(entry.bank_id, list);
  }

  /** Newest first. */
  entries(bankId: string): AuditEntry[] {
    return [...(this.byBank.get(bankId) ?? [])].reverse();
  }

  forget(bankId: string): void {
    this.byBank.delete(bankId);
  }
}
