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
  /**
   * `user`: a personal bank; `project`: the isolated bank of the project in `dir`; `shared`: a
   * coding bank every project (domain-tagged) keeps its memories in, each under its own tag.
   */
  readonly kind: 'user' | 'project' | 'shared';
  /** Where it is named, as a person reads it: a file path or an environment variable. */
  readonly where: string;
  /** The project directory whose file names it (absent for the user file and the environment). */
  readonly dir?: string;
  /** Set on a trusted project's claim that another claim gives another tier: it refuses nothing. */
  readonly disputed?: true;
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
const PROJECT_BANK_VARIABLES = ['PI_MEMORY_PROJECT_BANK_ID'] as const;

/** Two claims on one bank that give it different tiers (or make it two projects' own). */
const disputes = (a: KnownBank, b: KnownBank): boolean => a.bankId === b.bankId && (a.kind !== b.kind || (a.kind === 'project' && a.dir !== b.dir));

/**
 * Every bank the person's config names, with its tier. The user file and the environment are the
 * person's own word and always count. A trusted project's file is a repository's text the person
 * vouched for, not a say over other projects: its claim on a bank that any other claim gives
 * another tier (the shared coding bank called personal, or another project's isolated bank) is
 * disputed and refuses nothing, so one project cannot take every other project's bank away by
 * renaming its tier; it is kept in the list so the claiming project's own personal bank is
 * refused (`refusedPersonalBank`).
 */
export const knownBanksOf = (input: KnownBanksInput): KnownBank[] => {
  const person: KnownBank[] = [];
  const userBank = input.user === undefined ? undefined : bankAt(input.user.data, 'banks.global.bankId');
  if (userBank !== undefined && input.user !== undefined) person.push({ bankId: userBank, kind: 'user', where: `banks.global.bankId in ${input.user.path}` });
  const userShared = input.user === undefined ? undefined : bankAt(input.user.data, 'banks.project.bankId');
  if (userShared !== undefined && input.user !== undefined) person.push({ bankId: userShared, kind: 'shared', where: `banks.project.bankId in ${input.user.path}` });
  for (const [names, kind] of [[USER_BANK_VARIABLES, 'user'], [PROJECT_BANK_VARIABLES, 'shared']] as const) {
    for (const name of names) {
      const value = input.env[name]?.trim();
      if (value !== undefined && BankId.is(value)) person.push({ bankId: value, kind, where: `the environment variable ${name}` });
    }
  }
  const userMode = input.user === undefined ? undefined : at(input.user.data, 'scope.mode');
  const trusted: KnownBank[] = [];
  for (const { dir, layer } of input.trusted) {
    const personal = bankAt(layer.data, 'banks.global.bankId');
    if (personal !== undefined) trusted.push({ bankId: personal, kind: 'user', where: `banks.global.bankId in ${layer.path}`, dir });
    const own = bankAt(layer.data, 'banks.project.bankId');
    const isolated = (at(layer.data, 'scope.mode') ?? userMode) === 'isolated-bank';
    if (own !== undefined) {
      trusted.push({ bankId: own, kind: isolated ? 'project' : 'shared', where: `banks.project.bankId in ${layer.path}${isolated ? ' (scope.mode isolated-bank)' : ''}`, dir });
    }
  }
  const all = [...person, ...trusted];
  return [...person, ...trusted.map((claim): KnownBank => (all.some((other) => other !== claim && disputes(claim, other)) ? { ...claim, disputed: true } : claim))];
};

/**
 * Why a project file's `banks.global.bankId`, `bankId`, is refused as this project's personal
 * bank; or undefined when it may be. A bank is of one tier: the person's config naming it as a
 * shared coding bank or a project's own bank (this project's included) makes it no user bank.
 */
export const refusedPersonalBank = (bankId: string, projectBankId: string | undefined, known: readonly KnownBank[]): string | undefined => {
  if (bankId === projectBankId) return `names ${bankId}, this project's own bank (banks.project.bankId); a personal bank is never a project's bank, refused`;
  const other = known.find((b) => b.kind !== 'user' && b.bankId === bankId);
  if (other === undefined) return undefined;
  const what = other.kind === 'shared' ? 'the coding bank your projects share' : `the bank of ${other.dir ?? 'a project'} alone`;
  return `names ${bankId}, ${what} (${other.where}); a personal bank is never a project's bank (memory kept there as yours would be read as every project's), refused`;
};

/**
 * Why `bankId`, named by the project file of `projectDir` as its project bank, is refused; or
 * undefined when it may be. A user bank is refused in every project (its own file included: a
 * project's turns there would pass the user-bank filter's tags); another project's isolated bank
 * in every project but that one.
 */
export const refusedProjectBank = (bankId: string, projectDir: string, known: readonly KnownBank[]): string | undefined => {
  const user = known.find((b) => b.kind === 'user' && b.bankId === bankId && b.disputed !== true);
  if (user !== undefined) {
    return `names ${bankId}, your personal memory bank (${user.where}); a project's bank is never a user bank (its turns would be kept among your personal memories), refused`;
  }
  const other = known.find((b) => b.kind === 'project' && b.bankId === bankId && b.dir !== projectDir && b.disputed !== true);
  if (other !== undefined) return `names ${bankId}, the bank of ${other.dir ?? 'another project'} alone (${other.where}), refused`;
  return undefined;
};

/**
 * What a scope takes from a load: the personal banks a tool may reach only as the user bank, and
 * the project file's refused project bank, said wherever the scope's problems are (status,
 * doctor, memory_status, memory_scope).
 */
export const bankScopeInput = (loaded: { readonly knownBanks: readonly KnownBank[]; readonly warnings: readonly ConfigWarning[] }) => ({
  knownUserBanks: loaded.knownBanks.filter((b) => b.kind === 'user' && b.disputed !== true).map((b) => ({ bankId: b.bankId, where: b.where })),
  notes: loaded.warnings.filter((w) => w.source === 'project' && w.field === 'banks.project.bankId' && w.message.includes(', refused')).map((w) => w.message),
});
