/** The host's project trust joined with memory.trustedOrigins: both must allow a project-chosen server or key variable. */
import { describe, expect, it } from 'vitest';
import { joinHostTrust } from '../../src/config/hostTrust.js';
import { loadConfig } from '../../src/config/load.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const project = (memory: Record<string, unknown>, user?: Record<string, unknown>) => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-hosttrust-'));
  const cwd = path.join(root, 'p');
  const home = path.join(root, 'h');
  mkdirSync(path.join(cwd, '.pi'), { recursive: true });
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory }));
  if (user !== undefined) writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: user }));
  return loadConfig({ cwd, home, env: {} });
};

describe('joinHostTrust', () => {
  it('an untrusted project that chooses the server gets no key, and the reason names pi project trust', () => {
    const loaded = project({ baseUrl: 'http://127.0.0.1:7777' }, { trustedOrigins: ['http://127.0.0.1:7777'] });
    expect(loaded.trust.keyAllowed).toBe(true);
    const joined = joinHostTrust(loaded, false);
    expect(joined.trust.keyAllowed).toBe(false);
    expect(joined.trust.keyAllowedFor).toBeNull();
    expect(joined.trust.reason).toContain('pi does not trust this project');
    expect(joined.trust.reason).toContain('rule: pi project trust');
    // The loaded config is not changed in place.
    expect(loaded.trust.keyAllowed).toBe(true);
  });

  it('a trusted project still needs the origin rule; the reason names both', () => {
    const untrustedOrigin = joinHostTrust(project({ baseUrl: 'http://127.0.0.1:7777' }), true);
    expect(untrustedOrigin.trust.keyAllowed).toBe(false);
    expect(untrustedOrigin.trust.reason).toContain('rule: pi trusts this project, and memory.trustedOrigins');
    const listed = joinHostTrust(project({ baseUrl: 'http://127.0.0.1:7777' }, { trustedOrigins: ['http://127.0.0.1:7777'] }), true);
    expect(listed.trust.keyAllowed).toBe(true);
  });

  it('untrusted but the project file chooses neither server nor key variable: the origin rule alone', () => {
    const joined = joinHostTrust(project({ timeoutMs: 3000 }), false);
    expect(joined.trust.keyAllowed).toBe(true);
    expect(joined.trust.reason).toContain('the project file does not choose the server or key variable');
  });

  it('a host without project trust (pi 0.73) leaves the origin rule alone and says so', () => {
    const loaded = project({ baseUrl: 'http://127.0.0.1:7777' }, { trustedOrigins: ['http://127.0.0.1:7777'] });
    const joined = joinHostTrust(loaded, undefined);
    expect(joined.trust.keyAllowed).toBe(true);
    expect(joined.trust.reason).toContain('this pi has no project trust');
  });
});
