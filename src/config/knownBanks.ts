/**
 * Banks the person's own config names as theirs: user (personal) banks, and banks a project the
 * person trusts keeps for itself alone (isolated-bank mode). A repository's project file may
 * name its project bank, but never one of these: a user bank's recall is filtered by tags every
 * project turn carries, and another project's isolated bank is that project's alone. Pure: the
 * loader reads the files (`load.ts`).
 */
import { BankId } from '../codecs/codecs.js';
import type { ConfigLayer, ConfigWarning } from './resolve.js';

export interface KnownBank {
  readonly bankId: string;
  /** `user`: a personal bank; `project`: the isolated bank of the project in `dir`. */
  readonly kind: 'user' | 'project';
  /** Where it is named, as a person reads it: a file path or an environment variable. */
  readonly where: string;
  /** The project directory whose file names it (absent for the user file and the environment). */
  readonly dir?: string;
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

const at = (data: unknown, dotted: string): unknown => {
  let cur: unknown = data;
  for (const key of dotted.split('.')) {
    if (!isRecord(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
};

const bankAt = (data: unknown, dotted: string): string | undefined => {
  const value = at(data, dotted);
  return typeof value === 'string' && BankId.is(value) ? value : undefined;
};

export interface KnownBanksInput {
  readonly user?: ConfigLayer | undefined;
  /** The project files of the directories the user file lists in `memory.trustedProjects`. */
  readonly trusted: readonly { readonly dir: string; readonly layer: ConfigLayer }[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

const USER_BANK_VARIABLES = ['PI_MEMORY_USER_BANK_ID', 'PI_MEMORY_GLOBAL_BANK_ID'] as const;

export const knownBanksOf = (input: KnownBanksInput): KnownBank[] => {
  const out: KnownBank[] = [];
  const userBank = input.user === undefined ? undefined : bankAt(input.user.data, 'banks.global.bankId');
  if (userBank !== undefined && input.user !== undefined) out.push({ bankId: userBank, kind: 'user', where: `banks.global.bankId in ${input.user.path}` });
  for (const name of USER_BANK_VARIABLES) {
    const value = input.env[name]?.trim();
    if (value !== undefined && BankId.is(value)) out.push({ bankId: value, kind: 'user', where: `the environment variable ${name}` });
  }
  for (const { dir, layer } of input.trusted) {
    const personal = bankAt(layer.data, 'banks.global.bankId');
    if (personal !== undefined) out.push({ bankId: personal, kind: 'user', where: `banks.global.bankId in ${layer.path}`, dir });
    const own = bankAt(layer.data, 'banks.project.bankId');
    if (own !== undefined && at(layer.data, 'scope.mode') === 'isolated-bank') out.push({ bankId: own, kind: 'project', where: `banks.project.bankId in ${layer.path} (scope.mode isolated-bank)`, dir });
  }
  return out;
};

/**
 * Why `bankId`, named by the project file of `projectDir` as its project bank, is refused; or
 * undefined when it may be. A user bank is refused in every project (its own file included: a
 * project's turns there would pass the user-bank filter's tags); another project's isolated bank
 * in every project but that one.
 */
export const refusedProjectBank = (bankId: string, projectDir: string, known: readonly KnownBank[]): string | undefined => {
  const user = known.find((b) => b.kind === 'user' && b.bankId === bankId);
  if (user !== undefined) {
    return `names ${bankId}, your personal memory bank (${user.where}); a project's bank is never a user bank (its turns would be kept among your personal memories), refused`;
  }
  const other = known.find((b) => b.kind === 'project' && b.bankId === bankId && b.dir !== projectDir);
  if (other !== undefined) return `names ${bankId}, the bank of ${other.dir ?? 'another project'} alone (${other.where}), refused`;
  return undefined;
};

/**
 * What a scope takes from a load: the personal banks a tool may reach only as the user bank, and
 * the project file's refused project bank, said wherever the scope's problems are (status,
 * doctor, memory_status, memory_scope).
 */
export const bankScopeInput = (loaded: { readonly knownBanks: readonly KnownBank[]; readonly warnings: readonly ConfigWarning[] }) => ({
  knownUserBanks: loaded.knownBanks.filter((b) => b.kind === 'user').map((b) => ({ bankId: b.bankId, where: b.where })),
  notes: loaded.warnings.filter((w) => w.source === 'project' && w.field === 'banks.project.bankId' && w.message.includes(', refused')).map((w) => w.message),
});
