/**
 * Round 10's leftovers (round 11). A secret value stopped at `,` `)` `}` `]`
 * (`x DB_PASSWORD=hunter2,Tr0ub4dor` kept `,Tr0ub4dor`, `token: (abc)def` kept `)def`), as it had
 * at `;`: a person's secret holds them, and what ends a value is the space or end after them, or
 * the next setting's name. `htpasswd -b file user PASSWORD` (a positional password) and a quoted
 * password given to a tool's short flag (`mysql -p"two words"`) kept their password or its second
 * word, and a quoted token said in prose ("the token is "abc def ghi"") was kept: the prose rule
 * read password words only. The real redactor and the real projection of a run
 * (`buildRetainJobs`, what `agent_end` queues).
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
const now = Date.UTC(2026, 10, 28, 19);
const session = { sessionId: 's-1', sessionFile: '/home/u/.pi/agent/sessions/x/s-1.jsonl', cwd: '/work/proj' };
const user = (text: string): HostMessage => ({ role: 'user', content: text, timestamp: now });
const contentOf = (messages: HostMessage[]): string => buildRetainJobs({ messages, scope, config, session, now, digest: nodeIds.digest }).jobs[0]?.item.content ?? '';

const KEPT_BEFORE: readonly (readonly [string, string])[] = [
  ['x DB_PASSWORD=hunter2,Tr0ub4dor', 'Tr0ub4dor'],
  ['export API_TOKEN=abc,def123', 'def123'],
  ['token: (abc)def', 'def'],
  ['the api_key=abc]Def987 here', 'Def987'],
  ['export GITHUB_TOKEN=abc}Xyz123', 'Xyz123'],
  ['{secret:a}Bcd456}', 'Bcd456'],
  ['SECRET_KEY=ab))Cd99', 'Cd99'],
  ['secret: {a,Bq77}', 'Bq77'],
  ['htpasswd -b /etc/nginx/.htpasswd ann S3cretPw', 'S3cretPw'],
  ['htpasswd -nb ann S3cretPw', 'S3cretPw'],
  ['sudo htpasswd -cbB -C 12 .htpasswd ann "two W0rds" && nginx -s reload', 'W0rds'],
  ['mysql -u root -p"two W0rds" shop', 'W0rds'],
  ["redis-cli -a 'two W0rds' ping", 'W0rds'],
  ['docker login -p "two W0rds" registry.local', 'W0rds'],
  ['the token is "abc def ghi"', 'abc def ghi'],
  ["my api key was 'Xq fz Lp'", 'Xq fz Lp'],
  ['the secret is \u201cmaple syrup 42\u201d, ok', 'maple syrup'],
];

describe('what a person writes in a secret is hidden with it', () => {
  it.each(KEPT_BEFORE)('%s', (text, rest) => {
    const out = redact(text);
    expect(out).toContain('[REDACTED]');
    expect(out).not.toContain(rest);
  });

  it('in a run too (what agent_end queues)', () => {
    const content = contentOf([user('set it: x DB_PASSWORD=hunter2,Tr0ub4dor'), user('then htpasswd -b .htpasswd ann S3cretPw')]);
    expect(content).not.toContain('Tr0ub4dor');
    expect(content).not.toContain('S3cretPw');
  });

  it('keeps what follows a value that ends: another setting, code going on, a space', () => {
    expect(redact('f(token=tok,user=u)')).toBe('f(token=[REDACTED],user=u)');
    expect(redact('{token:t,user:u}')).toBe('{token:[REDACTED],user:u}');
    expect(redact('login(token=pw, user=u)')).toBe('login(token=[REDACTED], user=u)');
    expect(redact('f(token=abc).then(x)')).toBe('f(token=[REDACTED]).then(x)');
    expect(redact('def f(token=None): pass')).toBe('def f(token=[REDACTED]): pass');
    expect(redact('Server=db;Password=p@ss;User Id=app')).toBe('Server=db;Password=[REDACTED];User Id=app');
    expect(redact('[token=abc]')).toBe('[token=[REDACTED]]');
    expect(redact('htpasswd -c .htpasswd ann')).toBe('htpasswd -c .htpasswd ann');
    expect(redact('mysql -p shop')).toBe('mysql -p shop');
    expect(redact('the token is expired')).toBe('the token is expired');
    expect(redact('the tokens are "a", "b"')).toBe('the tokens are "a", "b"');
  });
});
