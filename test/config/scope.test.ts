import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { defaultConfigTemplate, MemoryConfig } from '../../src/config/fields.js';
import { resolveBank, resolveScope, scopeTagsFor, type Scope } from '../../src/config/scope.js';

/** A config from the defaults plus overrides, decoded so brands are honest. */
const configWith = (overrides: Record<string, unknown>): MemoryConfig => {
  const decoded = MemoryConfig.decode({ ...defaultConfigTemplate(), ...overrides });
  if (E.isLeft(decoded)) throw new Error('bad test config');
  return decoded.right;
};

const input = { cwd: '/work/repo', repoRoot: '/work/repo', gitRemote: 'git@github.com:org/repo.git' };
const ids = (targets: readonly { bankId: string }[]) => targets.map((t) => t.bankId);
const scopeOf = (overrides: Record<string, unknown>): Scope => resolveScope(configWith(overrides), input);

describe('scope identity and tags', () => {
  it('project and legacy tags, dual-tag window for recall', () => {
    const scope = scopeOf({ projectBankId: 'coding' });
    expect(scope.identity.tag).toBe('project:github.com/org/repo');
    expect(scope.projectScopeTags).toEqual(['project:github.com/org/repo', scope.identity.legacyTag]);
    expect(scope.identity.legacyTag).toMatch(/^repo:repo-[0-9a-f]{12}$/);
    expect(scope.projectRetainTags).toEqual(['source:pi', 'harness:pi', ...scope.projectScopeTags]);
    expect(scope.problems).toEqual([]);
  });

  it('domain-tagged without a project bank id uses a path-derived id and says so', () => {
    const scope = scopeOf({});
    expect(scope.projectBank.derived).toBe(true);
    expect(scope.projectBank.bankId).toMatch(/^pi-project-repo-[0-9a-f]{12}$/);
    expect(scope.problems.join()).toContain('banks.project.bankId');
  });

  it('isolated-bank mode accepts the path-derived bank silently and still tags by project', () => {
    const scope = scopeOf({ scopeMode: 'isolated-bank' });
    expect(scope.mode).toBe('isolated-bank');
    expect(scope.problems).toEqual([]);
    expect(scope.projectScopeTags[0]).toBe('project:github.com/org/repo');
  });

  it('strategies: pin, remote, basename', () => {
    expect(scopeOf({ projectId: 'Pinned' }).identity).toMatchObject({ id: 'pinned', basis: 'pin' });
    expect(scopeOf({ projectIdStrategy: 'basename' }).identity).toMatchObject({ id: 'repo', basis: 'basename' });
    expect(resolveScope(configWith({}), { cwd: '/work/other' }).identity).toMatchObject({ id: 'other', basis: 'basename' });
  });
});

describe('routing per memory profile', () => {
  const table = [
    // profile, global bank enabled, auto read, auto write, explicit write, writeGlobal
    ['project-only', false, ['coding'], ['coding'], ['coding'], null],
    ['project-only', true, ['coding', 'me'], ['coding'], ['coding'], 'me'],
    ['project+global', false, ['coding', 'me'], ['coding'], ['coding'], 'me'],
    ['global-only', false, ['me'], [], [], 'me'],
    ['recall-only', false, ['coding'], [], ['coding'], null],
    ['recall-only', true, ['coding', 'me'], [], ['coding'], 'me'],
  ] as const;
  it.each(table)('%s (globalBankEnabled %s)', (profile, globalOn, read, write, explicitWrite, writeGlobal) => {
    const scope = scopeOf({ memoryProfile: profile, globalBankEnabled: globalOn, projectBankId: 'coding', globalBankId: 'me' });
    expect(ids(scope.automatic.read)).toEqual(read);
    expect(ids(scope.automatic.write)).toEqual(write);
    expect(ids(scope.explicit.read)).toEqual(read);
    expect(ids(scope.explicit.write)).toEqual(explicitWrite);
    expect(scope.explicit.writeGlobal?.bankId ?? null).toBe(writeGlobal);
    expect(scope.explicit.defaultBank?.bankId).toBe(profile === 'global-only' ? 'me' : 'coding');
    expect(scope.problems).toEqual([]);
  });

  it('a profile that needs the user bank without an id reports it', () => {
    const scope = scopeOf({ memoryProfile: 'project+global', projectBankId: 'coding' });
    expect(ids(scope.automatic.read)).toEqual(['coding']);
    expect(scope.problems.join()).toContain('banks.global.bankId');
    expect(scopeOf({ memoryProfile: 'global-only', projectBankId: 'coding' }).explicit.defaultBank).toBeNull();
  });

  it('master switch and recall/retain switches turn automatic I/O off, explicit I/O stays', () => {
    const off = scopeOf({ enabled: false, projectBankId: 'coding' });
    expect(off.automatic).toEqual({ read: [], write: [] });
    expect(ids(off.explicit.write)).toEqual(['coding']);
    expect(scopeOf({ recallEnabled: false, projectBankId: 'coding' }).automatic.read).toEqual([]);
    expect(scopeOf({ retainEnabled: false, projectBankId: 'coding' }).automatic.write).toEqual([]);
  });
});

describe('bank aliases', () => {
  const scope = scopeOf({ memoryProfile: 'project+global', projectBankId: 'coding', globalBankId: 'me' });
  it.each([
    [undefined, 'project', 'coding'],
    ['project', 'project', 'coding'],
    ['PROJECT', 'project', 'coding'],
    ['global', 'user', 'me'],
    ['user', 'user', 'me'],
    ['coding', 'project', 'coding'],
    ['me', 'user', 'me'],
    ['another-bank', 'other', 'another-bank'],
  ])('%s -> %s bank %s', (bank, role, bankId) => {
    expect(resolveBank(scope, bank)).toEqual(E.right({ role, bankId }));
  });

  it('rejects bad ids and missing user banks with a readable error', () => {
    const bad = resolveBank(scope, 'has spaces!');
    expect(E.isLeft(bad) && bad.left.message).toContain('field bank');
    const noUser = resolveBank(scopeOf({ projectBankId: 'coding' }), 'global');
    expect(E.isLeft(noUser) && noUser.left.message).toContain('banks.global.bankId');
  });

  it('scope tags follow the bank role', () => {
    expect(scopeTagsFor(scope, { role: 'user', bankId: 'me' as never })).toEqual(['source:pi', 'harness:pi']);
    expect(scopeTagsFor(scope, { role: 'other', bankId: 'x' as never })).toEqual(scope.projectScopeTags);
  });
});
