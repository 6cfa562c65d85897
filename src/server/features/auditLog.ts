/**
 * The audit log of mutations: every successful write request on a bank (retain, edits,
 * deletes, config changes) with when it started and ended. Kept in memory, newest last, capped
 * per bank so a long-running server does not grow without bound; it starts empty after a
 * restart (the store itself is the durable record of what changed).
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

/** Upstream's action names for the routes that have one; others are named by method and path. */
const ACTIONS: readonly [string, RegExp, string][] = [
  ['POST', /\/memories$/, 'retain'],
  ['DELETE', /\/memories$/, 'clear_memories'],
  ['PATCH', /\/memories\/[^/]+$/, 'update_memory'],
  ['PUT', /\/banks\/[^/]+$/, 'create_bank'],
  ['PATCH', /\/banks\/[^/]+$/, 'update_bank'],
  ['DELETE', /\/banks\/[^/]+$/, 'delete_bank'],
  ['DELETE', /\/documents\/.+$/, 'delete_document'],
  ['PATCH', /\/documents\/.+$/, 'update_document'],
  ['PATCH', /\/config$/, 'update_bank_config'],
  ['POST', /\/import$/, 'import_bank_template'],
];

export const actionOf = (method: string, path: string): string => {
  for (const [m, pattern, name] of ACTIONS) if (m === method && pattern.test(path)) return name;
  const tail = path.split('/').filter((s) => s.length > 0).slice(4).join('_').replace(/[^a-z_-]/gi, '') || 'bank';
  return `${method.toLowerCase()}_${tail}`;
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
