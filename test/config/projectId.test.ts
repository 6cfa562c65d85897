import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { derivedProjectBankId, isLocalRemote, legacyRepoKey, normalizeRemote, projectIdentity, sanitizeProjectId } from '../../src/config/projectId.js';
import { readGitInfo } from '../../src/adapters/git/gitInfo.js';
import { BankId } from '../../src/codecs/codecs.js';

describe('normalizeRemote folds every spelling of one remote to one id', () => {
  const forms = [
    'https://github.com/org/repo',
    'https://github.com/org/repo.git',
    'https://github.com/org/repo/',
    'https://github.com/org/repo.git/',
    'https://GitHub.com/Org/Repo.git',
    'https://user:token123@github.com/org/repo.git',
    'https://ghp_abcdefabcdefabcdefabcdef@github.com/org/repo',
    'https://github.com:443/org/repo.git',
    'http://github.com/org/repo',
    'ssh://git@github.com/org/repo.git',
    'ssh://git@github.com:22/org/repo.git',
    'ssh://github.com//org//repo.git',
    'git+ssh://git@github.com/org/repo.git',
    'git://github.com/org/repo.git',
    'git@github.com:org/repo.git',
    'git@github.com:org/repo',
    'git@GITHUB.COM:Org/Repo.git/',
    'github.com:org/repo.git',
    '  git@github.com:org/repo.git\n',
  ];
  it.each(forms)('%s -> github.com/org/repo', (form) => {
    expect(normalizeRemote(form)).toBe('github.com/org/repo');
  });

  it('keeps nested groups and distinct hosts apart', () => {
    expect(normalizeRemote('git@gitlab.com:group/sub/repo.git')).toBe('gitlab.com/group/sub/repo');
    expect(normalizeRemote('https://gitlab.example.com:8443/group/sub/repo.git')).toBe('gitlab.example.com/group/sub/repo');
    expect(normalizeRemote('git@gitlab.com:org/repo.git')).not.toBe(normalizeRemote('git@github.com:org/repo.git'));
  });

  it('handles local paths and rejects empty input', () => {
    expect(normalizeRemote('/srv/git/Project.git')).toBe('srv/git/project');
    expect(normalizeRemote('file:///srv/git/project.git')).toBe('srv/git/project');
    expect(normalizeRemote('')).toBeUndefined();
    expect(normalizeRemote('   ')).toBeUndefined();
  });

  it('never keeps credentials (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{3,8}$/), fc.stringMatching(/^[A-Za-z0-9]{6,20}$/), (user, secret) => {
        const id = normalizeRemote(`https://${user}:${secret}@example.com/o/r.git`);
        expect(id).toBe('example.com/o/r');
      }),
      { numRuns: 200 },
    );
  });

  it('is idempotent on its own output (property)', () => {
    fc.assert(
      fc.property(fc.webUrl(), (url) => {
        const id = normalizeRemote(url);
        if (id === undefined) return;
        expect(normalizeRemote(id)).toBe(id);
      }),
      { numRuns: 300 },
    );
  });
});

describe('projectIdentity', () => {
  const root = '/work/My Project';
  const remote = 'git@github.com:Org/Repo.git';

  it('pin wins whatever the strategy', () => {
    for (const strategy of ['pin', 'remote', 'basename'] as const) {
      const id = projectIdentity({ strategy, pin: 'Team Alpha', repoRoot: root, remoteUrl: remote });
      expect(id).toMatchObject({ id: 'team-alpha', basis: 'pin', tag: 'project:team-alpha', source: 'Team Alpha' });
    }
  });

  it('remote strategy uses the normalised origin', () => {
    const id = projectIdentity({ strategy: 'remote', pin: undefined, repoRoot: root, remoteUrl: 'https://u:secretpw@github.com/Org/Repo.git' });
    expect(id).toMatchObject({ id: 'github.com/org/repo', basis: 'remote', tag: 'project:github.com/org/repo' });
    expect(id.source).not.toContain('secretpw');
  });

  it('remote strategy without a remote falls back to the folder name with a note', () => {
    const id = projectIdentity({ strategy: 'remote', pin: undefined, repoRoot: root, remoteUrl: undefined });
    expect(id).toMatchObject({ id: 'my-project', basis: 'basename', source: 'My Project' });
    expect(id.note).toContain('no git remote');
  });

  it('basename strategy ignores the remote', () => {
    expect(projectIdentity({ strategy: 'basename', pin: undefined, repoRoot: root, remoteUrl: remote }).id).toBe('my-project');
  });

  it('a remote that is a local path is not a hosted name: the id is its folder, as that repository has itself', () => {
    const local = (remoteUrl: string) => projectIdentity({ strategy: 'remote', pin: undefined, repoRoot: root, remoteUrl });
    expect(local('/work/main')).toMatchObject({ id: 'main', basis: 'remote', source: '/work/main' });
    expect(local('/srv/git/Project.git')).toMatchObject({ id: 'project', basis: 'remote' });
    expect(local('file:///srv/git/project.git/')).toMatchObject({ id: 'project', basis: 'remote' });
    expect(local('../widgets/.git')).toMatchObject({ id: 'widgets', basis: 'remote' });
    expect(local('C:\\code\\Widgets')).toMatchObject({ id: 'widgets', basis: 'remote' });
    expect(local('~/src/app')).toMatchObject({ id: 'app', basis: 'remote' });
    // Hosted spellings are unchanged.
    expect(local('git@github.com:Org/Repo.git').id).toBe('github.com/org/repo');
    expect(local('ssh://git@host.example/org/repo.git').id).toBe('host.example/org/repo');
    expect(isLocalRemote('git@github.com:org/repo.git')).toBe(false);
    expect(isLocalRemote('https://github.com/org/repo')).toBe(false);
  });

  it('a real git clone of a local repository gets the id its origin has', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'am-localclone-'));
    try {
      const origin = path.join(dir, 'Shop App');
      mkdirSync(origin);
      const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' });
      git(origin, 'init', '-q');
      git(origin, 'commit', '-q', '--allow-empty', '-m', 'first');
      const clone = path.join(dir, 'scratch');
      git(dir, 'clone', '-q', origin, clone);
      const idOf = async (cwd: string) => {
        const info = await readGitInfo(cwd);
        return projectIdentity({ strategy: 'remote', pin: undefined, repoRoot: info.repoRoot, remoteUrl: info.remoteUrl });
      };
      const [own, cloned] = [await idOf(origin), await idOf(clone)];
      expect(own).toMatchObject({ id: 'shop-app', basis: 'basename' });
      expect(cloned).toMatchObject({ id: 'shop-app', basis: 'remote' });
      expect(cloned.tag).toBe(own.tag);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pin strategy without a pin says so', () => {
    const id = projectIdentity({ strategy: 'pin', pin: undefined, repoRoot: root, remoteUrl: remote });
    expect(id.basis).toBe('basename');
    expect(id.note).toContain('scope.projectId');
  });

  it('legacy repo key and derived bank id are stable, path-hashed and bank-id-safe', () => {
    const id = projectIdentity({ strategy: 'remote', pin: undefined, repoRoot: root, remoteUrl: remote });
    expect(id.legacyKey).toMatch(/^my-project-[0-9a-f]{12}$/);
    expect(id.legacyTag).toBe(`repo:${id.legacyKey}`);
    expect(legacyRepoKey(root)).toBe(id.legacyKey);
    expect(legacyRepoKey('/other/My Project')).not.toBe(id.legacyKey);
    expect(BankId.is(derivedProjectBankId(root))).toBe(true);
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(BankId.is(derivedProjectBankId(`/x/${name}`))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('sanitizeProjectId', () => {
    expect(sanitizeProjectId('  Foo Bar!! ')).toBe('foo-bar');
    expect(sanitizeProjectId('!!!')).toBeUndefined();
  });
});
