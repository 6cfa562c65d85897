/**
 * Round 9's leftovers (round 10). A line "the staging db password is:" alone showed as
 * "…is[REDACTED]": the prose rule took the colon for the value. The cue is now kept readable,
 * and the secret in the next message is still hidden. And a value holding `;` was cut there
 * (`x DB_PASSWORD=hunter2;Tr0ub4dor` kept `;Tr0ub4dor`); a `;` that starts another setting
 * (`Password=x;User Id=y`) or ends a statement (`f(); next()`) still ends it. The real redactor
 * and the real projection of a run (`buildRetainJobs`, what `agent_end` queues).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfigTemplate, type MemoryConfig } from '../../src/config/fields.js';
import { resolveScope } from '../../src/config/scope.js';
import { redact } from '../../src/config/redact.js';
import { nodeIds } from '../../src/adapters/ids/nodeIds.js';
import { buildRetainJobs } from '../../src/effects/session/retainProjection.js';
import type { HostMessage } from '../../src/effects/session/messages.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });
const now = Date.UTC(2026, 10, 28, 16);
const session = { sessionId: 's-1', sessionFile: '/home/u/.pi/agent/sessions/x/s-1.jsonl', cwd: '/work/proj' };
const user = (text: string): HostMessage => ({ role: 'user', content: text, timestamp: now });
const contentOf = (messages: HostMessage[]): string => buildRetainJobs({ messages, scope, config, session, now, digest: nodeIds.digest }).jobs[0]?.item.content ?? '';

describe('a cue for a secret, alone, is kept readable', () => {
  it.each(['the staging db password is:', 'the staging db password is: ', 'the password is...', 'what is the password?', 'my password was :', 'the password is — ask Ann'])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('still hides the secret the next message gives, and keeps the cue', () => {
    const content = contentOf([user('the staging db password is:'), user('hunter2-Tr0ub4dor&3')]);
    expect(content).toContain('the staging db password is:');
    expect(content).not.toContain('is[REDACTED]');
    expect(content).not.toContain('Tr0ub4dor');
    expect(content).toContain('[REDACTED]');
  });

  it('still hides a value of punctuation and a value after the colon', () => {
    expect(redact('the password is: !@#$%^&*(x)')).not.toContain('!@#$');
    expect(redact('the staging db password is: hunter2x')).toBe('the staging db password is: [REDACTED]');
  });
});

describe('a secret value holding ; is hidden whole', () => {
  it.each([
    ['x DB_PASSWORD=hunter2;Tr0ub4dor', 'Tr0ub4dor'],
    ['export API_TOKEN=abc;def123', 'def123'],
    ['DB_PASSWORD: hunter2;Tr0ub4dor;x9', 'Tr0ub4dor'],
    ['the config has api_key=AbC;dEf123456 in it', 'dEf123456'],
    ['DB_PASSWORD=\nhunter2;Tr0ub4dor', 'Tr0ub4dor'],
  ])('%s', (text, rest) => {
    expect(redact(text)).not.toContain(rest);
  });

  it('in a run whose cue came in the message before', () => {
    expect(contentOf([user('DB_PASSWORD:'), user('hunter2;Tr0ub4dor')])).not.toContain('Tr0ub4dor');
  });

  it('keeps what follows a ; that starts another setting or ends a statement', () => {
    expect(redact('Server=db;Password=p@ss;User Id=app;Database=shop')).toBe('Server=db;Password=[REDACTED];User Id=app;Database=shop');
    expect(redact('e.token=t;e.user=n')).toBe('e.token=[REDACTED];e.user=n');
    expect(redact('const token = next(); done()')).toBe('const token = [REDACTED]); done()');
    expect(redact('x password=abc123; y')).toBe('x password=[REDACTED]; y');
  });
});
