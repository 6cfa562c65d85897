/**
 * Scope and bank routing: which project this is, which tags scope it, and which banks are
 * read and written, automatically and by explicit tool calls, for each memory profile.
 */
import * as E from 'fp-ts/lib/Either.js';
import { BankId } from '../codecs/codecs.js';
import type { MemoryConfig } from './fields.js';
import { derivedProjectBankId, projectIdentity, type ProjectIdentity } from './projectId.js';
import { redact } from './redact.js';

export type BankRole = 'project' | 'user';

export interface BankTarget {
  readonly role: BankRole | 'other';
  readonly bankId: BankId;
}

export interface ScopeInput {
  readonly cwd: string;
  /** `remote.origin.url`, when the directory is in a git repository that has one. */
  readonly gitRemote?: string | undefined;
  /** The main repository root; default the cwd. */
  readonly repoRoot?: string | undefined;
  /** Banks the person's config names as personal (`knownBanks.ts`): a tool reaches them only as this project's user bank. */
  readonly knownUserBanks?: readonly { readonly bankId: string; readonly where: string }[];
  /** Problems config resolution found with the banks (a refused project bank), shown with the scope's own. */
  readonly notes?: readonly string[];
}

export interface Scope {
  readonly identity: ProjectIdentity;
  readonly mode: MemoryConfig['scopeMode'];
  readonly profile: MemoryConfig['memoryProfile'];
  readonly projectBank: { readonly bankId: BankId; readonly derived: boolean; readonly active: boolean };
  readonly userBank: { readonly bankId: BankId | null; readonly active: boolean };
  /** Tags every project-bank recall is filtered by (dual-tag window: either tag matches). */
  readonly projectScopeTags: readonly string[];
  /** Tags every user-bank recall is filtered by; empty means bank isolation only. */
  readonly userScopeTags: readonly string[];
  /** Base tags of automatic project-bank retains. */
  readonly projectRetainTags: readonly string[];
  readonly automatic: { readonly read: readonly BankTarget[]; readonly write: readonly BankTarget[] };
  readonly explicit: {
    /** The bank a tool uses when it is given none. */
    readonly defaultBank: BankTarget | null;
    readonly read: readonly BankTarget[];
    readonly write: readonly BankTarget[];
    /** Where `memory_retain_global` writes. */
    readonly writeGlobal: BankTarget | null;
  };
  /** Why something the profile asks for is not available (shown by status and doctor). */
  readonly problems: readonly string[];
  /** Personal banks the person's config names (any project's), with where: reached only as the active user bank. */
  readonly knownUserBanks: readonly { readonly bankId: string; readonly where: string }[];
}

/** The problem a domain-tagged scope without a named project bank reports (the doctor leaves it out when its Setup line says so). */
export const AWAITING_PROJECT_BANK =
  "automatic recall and retain wait for the bank that holds all your projects' memory: name it in banks.project.bankId (scope.mode domain-tagged keeps one bank for every project, each kept apart by its project tag), or run /memory setup in pi to pick it; the bank shown until then is only named from this folder's path, and nothing is recalled or saved automatically";

/** Routes a config and a directory to banks and scope tags. Pure given its inputs. */
export const resolveScope = (config: MemoryConfig, input: ScopeInput): Scope => {
  const repoRoot = input.repoRoot ?? input.cwd;
  const identity = projectIdentity({ strategy: config.projectIdStrategy, pin: config.projectId, repoRoot, remoteUrl: input.gitRemote });
  const problems: string[] = [...(input.notes ?? [])];
  if (identity.note !== undefined) problems.push(identity.note);

  const derived = config.projectBankId === undefined;
  const projectBankId = config.projectBankId ?? (derivedProjectBankId(repoRoot) as BankId);
  if (derived && config.scopeMode === 'domain-tagged') {
    problems.push(AWAITING_PROJECT_BANK);
  }
  const profile = config.memoryProfile;
  const projectActive = profile !== 'global-only';
  const wantsUser = profile === 'project+global' || profile === 'global-only' || config.globalBankEnabled;
  const userBankId = config.globalBankId ?? null;
  const userActive = wantsUser && userBankId !== null;
  if (wantsUser && userBankId === null) problems.push(`memoryProfile ${profile} needs a user bank: set banks.global.bankId`);

  const project: BankTarget = { role: 'project', bankId: projectBankId };
  const user: BankTarget | null = userActive && userBankId !== null ? { role: 'user', bankId: userBankId } : null;
  const readable = [...(projectActive ? [project] : []), ...(user === null ? [] : [user])];
  const autoRetainProfile = profile === 'project-only' || profile === 'project+global';

  const projectScopeTags = [identity.tag, identity.legacyTag];
  return {
    identity,
    mode: config.scopeMode,
    profile,
    projectBank: { bankId: projectBankId, derived, active: projectActive },
    userBank: { bankId: userBankId, active: userActive },
    projectScopeTags,
    userScopeTags: [...config.userScopeTags],
    projectRetainTags: ['source:pi', 'harness:pi', ...projectScopeTags],
    automatic: {
      read: config.enabled && config.recallEnabled ? readable : [],
      write: config.enabled && config.retainEnabled && autoRetainProfile && projectActive ? [project] : [],
    },
    explicit: {
      defaultBank: projectActive ? project : user,
      read: readable,
      write: projectActive ? [project] : [],
      writeGlobal: user,
    },
    problems,
    knownUserBanks: [...(input.knownUserBanks ?? [])],
  };
};

export interface BankError {
  readonly _tag: 'BankError';
  readonly message: string;
}

/**
 * A tool's `bank` parameter -> a bank: omitted means the default bank, `project` the project
 * bank, `global`/`user` the user bank, anything else must be a valid bank id.
 */
export const resolveBank = (scope: Scope, bank: string | undefined): E.Either<BankError, BankTarget> => {
  const fail = (message: string): E.Either<BankError, BankTarget> => E.left({ _tag: 'BankError', message });
  if (bank === undefined || bank === '') {
    return scope.explicit.defaultBank === null ? fail('no bank is active: set banks.global.bankId or change memoryProfile') : E.right(scope.explicit.defaultBank);
  }
  const alias = bank.trim().toLowerCase();
  if (alias === 'project') return E.right({ role: 'project', bankId: scope.projectBank.bankId });
  if (alias === 'global' || alias === 'user') {
    return scope.userBank.bankId === null || !scope.userBank.active
      ? fail('no user bank is configured: set banks.global.bankId and enable it (banks.global.enabled or memoryProfile project+global)')
      : E.right({ role: 'user', bankId: scope.userBank.bankId });
  }
  if (!BankId.is(bank)) return fail(`field bank: expected a bank id or project, global, user; got ${JSON.stringify(redact(bank).slice(0, 60))}`);
  if (bank === scope.projectBank.bankId) return E.right({ role: 'project', bankId: bank });
  if (bank === scope.userBank.bankId && scope.userBank.active) return E.right({ role: 'user', bankId: bank });
  // A personal bank is reached only as this project's user bank, where the person turned user
  // memory on: named by id from anywhere else, a tool would keep (or read) project text there.
  const personal = bank === scope.userBank.bankId ? { where: 'banks.global.bankId' } : scope.knownUserBanks.find((b) => b.bankId === bank);
  if (personal !== undefined) {
    return fail(`field bank: ${bank} is your personal memory bank (${personal.where}), and user memory is not on in this project; a tool reaches it only as the user bank where you turned user memory on (banks.profile project+global)`);
  }
  return E.right({ role: 'other', bankId: bank });
};

/** A project's scope tag, current (`project:`) or legacy (`repo:`). */
export const isProjectTag = (tag: string): boolean => tag.startsWith('project:') || tag.startsWith('repo:');

/**
 * True for what a user bank's automatic recall may show: nothing a project wrote. The user
 * bank holds what `memory_retain_global` keeps (user scope tags only); a memory with a project
 * tag there came from a project whose file named the user bank as its project bank, and its
 * `source:pi` tags would otherwise pass the user scope filter in every project.
 */
export const fitsUserBank = (tags: readonly string[] | null | undefined): boolean => !(tags ?? []).some(isProjectTag);

/** The automatic scope tags a recall or reflect on `target` is filtered by. */
export const scopeTagsFor = (scope: Scope, target: BankTarget): readonly string[] =>
  target.role === 'user' ? scope.userScopeTags : scope.projectScopeTags;
