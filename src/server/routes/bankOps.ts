/** Bank defaults and lazy creation, shared by every route that writes into a bank. */
import type { ServerContext } from '../context.js';
import type { BankRecord, Mutation } from '../store/model.js';

export const newBank = (bankId: string, now: string): BankRecord => ({
  bank_id: bankId,
  name: bankId,
  disposition: { skepticism: 3, literalism: 3, empathy: 3 },
  mission: '',
  created_at: now,
  updated_at: now,
});

/** `[]` when the bank exists, else the `bank.put` that creates it with upstream defaults. */
export const ensureBankMutations = (server: ServerContext, bankId: string): Mutation[] =>
  server.store.bank(bankId) === undefined ? [{ type: 'bank.put', bank: newBank(bankId, server.nowIso()) }] : [];

/** Marks a write on the bank (list order, `last_write_at`, `last_document_at` for new documents). */
export const touchBank = (bank: BankRecord, now: string, newDocument: boolean): Mutation => ({
  type: 'bank.put',
  bank: { ...bank, updated_at: now, last_write_at: now, ...(newDocument ? { last_document_at: now } : {}) },
});
