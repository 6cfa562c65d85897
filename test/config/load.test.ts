import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { fieldList, fieldsForResetKey, type FieldSpec } from '../../src/config/fields.js';
import { resolveApiKey } from '../../src/config/trust.js';
import { REDACTED } from '../../src/config/redact.js';
import { makeSandbox, nest, type ConfigSandbox } from './helpers.js';

let box: ConfigSandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const load = (env: Record<string, string> = {}) => loadConfig({ cwd: box.cwd, home: box.home, env });

/** A valid value different from the default, per field kind. */
const sampleFor = (f: FieldSpec): unknown => {
  switch (f.kind) {
    case 'boolean':
      return !(f.default as boolean);
    case 'select':
      return f.choices?.find((c) => c !== f.default) ?? f.default;
    case 'positive-int':
    case 'non-negative-int':
      // A period of 0 (none) changes to one a flush timer may keep (at least 1000 ms).
      return f.default === 0 ? 60_000 : (f.default as number) + 7;
    case 'text':
      return 'pinned-id';
    case 'url':
      return 'http://127.0.0.1:4321';
    case 'env-name':
      return 'SOME_KEY_VAR';
    case 'secret':
      return 'plain-direct-value';
    case 'bank-id':
      return 'bank-x';
    case 'tags':
      return ['team:a'];
    case 'fact-types':
      return ['world'];
    case 'path':
      return 'memory/custom/file.jsonl';
    case 'origins':
      return ['http://127.0.0.1:4321'];
    case 'projects':
      return ['/srv/trusted-project'];
  }
};
const expectedFor = (f: FieldSpec, sample: unknown): unknown => (f.kind === 'path' ? path.join(box.stateDir, sample as string) : sample);

describe('defaults', () => {
  it('every field has its table default when no file and no environment set it', () => {
    const { config, sources, warnings, errors } = load();
    expect(warnings).toEqual([]);
    expect(errors).toEqual([]);
    for (const f of fieldList) {
      const expected = f.kind === 'path' ? (f.default as string).replace('{state_dir}', box.stateDir) : f.default;
      expect(config[f.name], f.name).toEqual(expected);
      expect(sources[f.name], f.name).toBe('default');
    }
  });

  it('matches the contract values', () => {
    const { config } = load();
    expect(config).toMatchObject({
      enabled: true, baseUrl: 'http://localhost:8888', timeoutMs: 30000, memoryProfile: 'project-only', agentUse: 'coding',
      recallMaxTokens: 800, recallUserMaxTokens: 400, recallBudget: 'mid', retainDelivery: 'immediate', importToolSummaryMaxChars: 500,
      statusMaxLength: 24, statusStyle: 'text', statusDetail: 'activity', scopeMode: 'domain-tagged', includeSharedObservations: false,
      globalRetainMode: 'explicit-only', notifyStartup: true, notifyRecall: false, notifyRetain: false,
    });
    expect(config.queuePath).toBe(path.join(box.stateDir, 'memory', 'retain-queue.jsonl'));
    expect(config.apiKeyEnv).toBeUndefined();
  });
});

describe('every field is read from its reset-key location', () => {
  it.each(fieldList.map((f) => [f.name, f] as const))('%s round-trips through the user file and resets to default', (_n, f) => {
    const sample = sampleFor(f);
    box.writeUser(nest(f.path, sample));
    const loaded = load();
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config[f.name]).toEqual(expectedFor(f, sample));
    expect(loaded.sources[f.name]).toBe('user');
    // The reset key names this field; removing every path it resets restores the default.
    expect(fieldsForResetKey(f.resetKey)).toContain(f.name);
    box.writeUser({});
    expect(load().sources[f.name]).toBe('default');
  });

  it.each(fieldList.filter((f) => f.userFileOnly !== true).map((f) => [f.name, f] as const))('%s is read from the project file', (_n, f) => {
    const sample = sampleFor(f);
    // A field that decides whose memories are read is honoured only for a project the user trusts.
    if (f.identity === true) box.writeUser({ memory: { trustedProjects: [box.cwd] } });
    box.writeProject(nest(f.path, sample));
    const loaded = load();
    expect(loaded.config[f.name]).toEqual(expectedFor(f, sample));
    expect(loaded.sources[f.name]).toBe('project');
  });

  it('memory.apiKey resets both key fields', () => {
    expect([...fieldsForResetKey('memory.apiKey')].sort()).toEqual(['apiKeyDirect', 'apiKeyEnv']);
  });
});

describe('precedence and merge', () => {
  it('defaults < user < project < environment', () => {
    box.writeUser({ memory: { baseUrl: 'http://127.0.0.1:1001', timeoutMs: 1000 }, recall: { budget: 'low' } });
    box.writeProject({ memory: { timeoutMs: 2000 } });
    const { config, sources } = load({ MEMORY_BASE_URL: 'http://127.0.0.1:3003' });
    expect(config.baseUrl).toBe('http://127.0.0.1:3003');
    expect(sources.baseUrl).toBe('env');
    expect(config.timeoutMs).toBe(2000);
    expect(sources.timeoutMs).toBe('project');
    expect(config.recallBudget).toBe('low');
    expect(sources.recallBudget).toBe('user');
  });

  it('merges objects key by key and replaces arrays', () => {
    box.writeUser({ recall: { maxTokens: 100, budget: 'low', types: ['world', 'experience'] } });
    box.writeProject({ recall: { budget: 'high', types: ['observation'] } });
    const { config } = load();
    expect(config.recallMaxTokens).toBe(100);
    expect(config.recallBudget).toBe('high');
    expect(config.recallTypes).toEqual(['observation']);
  });

  it('null means "not set here"', () => {
    box.writeUser({ recall: { maxTokens: 100 } });
    box.writeProject({ recall: { maxTokens: null } });
    expect(load().config.recallMaxTokens).toBe(100);
  });
});

describe('bad values', () => {
  it.each([0, -1, 1.5, '100', null, true])('timeoutMs %j is not a positive integer', (bad) => {
    box.writeUser({ memory: { timeoutMs: bad } });
    const { config, warnings } = load();
    expect(config.timeoutMs).toBe(30000);
    if (bad === null) return expect(warnings).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain(box.userFile);
    expect(warnings[0]?.message).toContain('field memory.timeoutMs');
    expect(warnings[0]?.message).toContain(JSON.stringify(bad));
  });

  it('falls back to the default with a warning naming file, field and value', () => {
    box.writeProject({ recall: { budget: 'extreme' }, status: { style: 7 } });
    const { config, warnings } = load();
    expect(config.recallBudget).toBe('mid');
    expect(config.statusStyle).toBe('text');
    const messages = warnings.map((w) => w.message).join('\n');
    expect(messages).toContain(`${box.projectFile}: field recall.budget: expected low | mid | high (got "extreme"); using "mid"`);
    expect(messages).toContain('field status.style');
  });

  it('a bad value in the project file keeps the user value', () => {
    box.writeUser({ recall: { maxTokens: 123 } });
    box.writeProject({ recall: { maxTokens: 'lots' } });
    expect(load().config.recallMaxTokens).toBe(123);
  });

  it('redacts secrets in warnings', () => {
    const secret = 'hunter2-very-secret';
    box.writeUser({ memory: { baseUrl: `https://alice:${secret}@example.com` } });
    box.writeProject({ memory: { apiKey: secret } });
    const { warnings, config } = load();
    expect(config.baseUrl).toBe('http://localhost:8888');
    expect(JSON.stringify(warnings)).not.toContain(secret);
    expect(warnings.map((w) => w.field).sort()).toEqual(['memory.apiKey', 'memory.baseUrl']);
    expect(warnings.find((w) => w.field === 'memory.apiKey')?.message).toContain('memory.apiKeyEnv');
  });

  it('warns about unknown fields and non-object sections', () => {
    box.writeUser({ recal: { maxTokens: 5 }, recall: 3 });
    const { warnings } = load();
    expect(warnings.map((w) => w.field).sort()).toEqual(['recal', 'recall']);
  });

  it('ignores __proto__ keys without polluting prototypes', () => {
    box.writeUser('{"__proto__": {"polluted": true}, "recall": {"__proto__": {"maxTokens": 5}, "maxTokens": 9}}');
    const { config } = load();
    expect(config.recallMaxTokens).toBe(9);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('invalid JSON', () => {
  it('is an error naming the file, line and column, and the file is left untouched', () => {
    const text = '{\n  "recall": {\n    "budget": "high",\n  }\n}\n';
    box.writeProject(text);
    const before = statSync(box.projectFile).mtimeMs;
    const { errors, config, files } = load();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: box.projectFile, line: 4, column: 3 });
    expect(errors[0]?.message).toContain(`${box.projectFile}: invalid JSON at line 4:3`);
    expect(config.recallBudget).toBe('mid');
    expect(files.project.error).toBeDefined();
    expect(readFileSync(box.projectFile, 'utf8')).toBe(text);
    expect(statSync(box.projectFile).mtimeMs).toBe(before);
  });

  it('the other file still applies', () => {
    box.writeUser({ recall: { budget: 'low' } });
    box.writeProject('{"recall":');
    const { errors, config } = load();
    expect(errors[0]?.message).toMatch(/line 1:11 \(offset 10\): unexpected end of input/);
    expect(config.recallBudget).toBe('low');
  });
});

describe('identity fields in a project the user file does not trust', () => {
  it('a value that is the one in effect (setup writes banks.profile project-only) says nothing; another is refused and said', () => {
    box.writeProject({ banks: { profile: 'project-only', project: { bankId: 'coding' } }, setupComplete: true });
    const same = load();
    expect(same.warnings).toEqual([]);
    expect(same.identity.refused).toEqual([]);
    box.writeProject({ banks: { profile: 'project+global', project: { bankId: 'coding' } }, setupComplete: true });
    const other = load();
    expect(other.config.memoryProfile).toBe('project-only');
    expect(other.warnings.map((w) => w.message).join('\n')).toContain('this project is not trusted for that');
    expect(other.identity.refused).toEqual(['banks.profile']);
  });
});

describe('apiKeyDirect and user-file-only fields', () => {
  it('apiKeyDirect in a project file is refused with a warning that hides the value', () => {
    box.writeProject({ memory: { apiKeyDirect: 'proj-raw-key-value', trustedOrigins: ['http://evil.test'] } });
    const { config, warnings } = load();
    expect(config.apiKeyDirect).toBeUndefined();
    expect(config.trustedOrigins).toEqual([]);
    expect(warnings.some((w) => w.field === 'memory.apiKeyDirect' && w.message.includes('only allowed in the user file'))).toBe(true);
    expect(JSON.stringify(warnings)).not.toContain('proj-raw-key-value');
    expect(warnings.find((w) => w.field === 'memory.apiKeyDirect')?.value).toBe(REDACTED);
  });

  it('apiKeyDirect in the user file is used', () => {
    box.writeUser({ memory: { apiKeyDirect: 'user-raw-key' } });
    const loaded = load();
    expect(resolveApiKey(loaded, {})).toEqual({ _tag: 'key', key: 'user-raw-key', from: 'user file (apiKeyDirect)' });
  });

  it('a key-shaped value in any project field is refused', () => {
    box.writeUser({ memory: { trustedProjects: [box.cwd] } });
    box.writeProject({ scope: { projectId: `sk-${'abcd1234'.repeat(4)}` } });
    const { config, warnings } = load();
    expect(config.projectId).toBeUndefined();
    expect(warnings[0]?.message).toContain('looks like a secret');
  });
});

describe('environment', () => {
  it.each([
    ['1', true], ['true', true], ['YES', true], ['on', true], ['0', false], ['off', false], ['nope', false],
  ])('PI_MEMORY_ENABLED=%s -> %s', (raw, expected) => {
    expect(load({ PI_MEMORY_ENABLED: raw }).config.enabled).toBe(expected);
  });

  it('MEMORY_API_TOKEN wins over MEMORY_API_KEY and is recorded by name only', () => {
    const loaded = load({ MEMORY_API_TOKEN: 'tok-value', MEMORY_API_KEY: 'key-value' });
    expect(loaded.config.apiKeyEnv).toBe('MEMORY_API_TOKEN');
    expect(JSON.stringify(loaded.config)).not.toContain('tok-value');
    expect(resolveApiKey(loaded, { MEMORY_API_TOKEN: 'tok-value' })).toMatchObject({ _tag: 'key', key: 'tok-value' });
  });

  it('MEMORY_API_KEY_REF names another variable', () => {
    expect(load({ MEMORY_API_KEY_REF: 'TEAM_KEY' }).config.apiKeyEnv).toBe('TEAM_KEY');
    const bad = load({ MEMORY_API_KEY_REF: 'not a name' });
    expect(bad.config.apiKeyEnv).toBeUndefined();
    expect(bad.warnings[0]?.message).toContain('environment: field MEMORY_API_KEY_REF');
  });

  it('bank ids from the environment', () => {
    const { config } = load({ PI_MEMORY_PROJECT_BANK_ID: 'coding', PI_MEMORY_USER_BANK_ID: 'me' });
    expect(config.projectBankId).toBe('coding');
    expect(config.globalBankId).toBe('me');
    expect(config.globalBankEnabled).toBe(true);
    expect(load({ PI_MEMORY_GLOBAL_BANK_ID: 'legacy-me' }).config.globalBankId).toBe('legacy-me');
  });

  it('an invalid environment value warns and keeps the file value', () => {
    box.writeUser({ memory: { baseUrl: 'http://127.0.0.1:1' } });
    const { config, warnings } = load({ MEMORY_BASE_URL: 'ftp://nope' });
    expect(config.baseUrl).toBe('http://127.0.0.1:1');
    expect(warnings[0]?.field).toBe('MEMORY_BASE_URL');
  });
});

describe('paths stay inside the state directory unless the user file says otherwise', () => {
  it.each(['../outside.jsonl', '/tmp/abs.jsonl', 'memory/../../x.jsonl', 'link/notes.txt', 'memory', 'memory.json', '{state_dir}/other.jsonl'])('project queuePath %s is refused', (bad) => {
    box.writeProject({ retain: { queuePath: bad } });
    const { config, warnings } = load();
    expect(config.queuePath).toBe(path.join(box.stateDir, 'memory', 'retain-queue.jsonl'));
    expect(warnings[0]?.message).toContain(`a project file may only name a file inside ${path.join(box.stateDir, 'memory')}`);
    expect(warnings[0]?.field).toBe('retain.queuePath');
  });

  it('user file may use absolute, ~ and {state_dir} paths', () => {
    box.writeUser({ retain: { queuePath: '~/queues/q.jsonl' }, import: { manifestPath: '/var/tmp/m.json', checkpointPath: '{state_dir}/c.json' } });
    const { config } = load();
    expect(config.queuePath).toBe(path.join(box.home, 'queues', 'q.jsonl'));
    expect(config.importManifest).toBe('/var/tmp/m.json');
    expect(config.importCheckpoint).toBe(path.join(box.stateDir, 'c.json'));
  });
});

describe('key trust', () => {
  const env = { MY_KEY: 'the-user-key' };

  it('the key goes to the user-file or default origin', () => {
    box.writeUser({ memory: { baseUrl: 'http://127.0.0.1:7001', apiKeyEnv: 'MY_KEY' } });
    const loaded = load();
    expect(loaded.trust).toMatchObject({ keyAllowed: true, keyAllowedFor: 'http://127.0.0.1:7001' });
    expect(resolveApiKey(loaded, env)).toMatchObject({ _tag: 'key', key: 'the-user-key' });
  });

  it('a project file moving baseUrl to a new origin withholds the key', () => {
    box.writeUser({ memory: { apiKeyEnv: 'MY_KEY' } });
    box.writeProject({ memory: { baseUrl: 'http://127.0.0.1:6666' } });
    const loaded = load();
    expect(loaded.config.baseUrl).toBe('http://127.0.0.1:6666');
    expect(loaded.trust).toMatchObject({ keyAllowed: false, keyAllowedFor: null, origin: 'http://127.0.0.1:6666' });
    const key = resolveApiKey(loaded, env);
    expect(key._tag).toBe('withheld');
    expect(JSON.stringify(key)).not.toContain('the-user-key');
    // Not only the key: memory is off for the project until the user trusts the origin.
    expect(loaded.config.enabled).toBe(false);
    expect(loaded.trust).toMatchObject({ memoryAllowed: false, rule: 'untrusted-origin' });
    expect(loaded.warnings.some((w) => w.message.includes('memory is off for this project') && w.message.includes('memory.trustedOrigins'))).toBe(true);
  });

  it('a project baseUrl on the same origin keeps the key', () => {
    box.writeUser({ memory: { baseUrl: 'http://127.0.0.1:7001', apiKeyEnv: 'MY_KEY' } });
    box.writeProject({ memory: { baseUrl: 'http://127.0.0.1:7001/' } });
    expect(load().trust.keyAllowed).toBe(true);
  });

  it('the user file can trust the new origin', () => {
    box.writeUser({ memory: { apiKeyEnv: 'MY_KEY', trustedOrigins: ['http://127.0.0.1:6666'] } });
    box.writeProject({ memory: { baseUrl: 'http://127.0.0.1:6666/api' } });
    const loaded = load();
    expect(loaded.trust).toMatchObject({ keyAllowed: true, keyAllowedFor: 'http://127.0.0.1:6666' });
    expect(resolveApiKey(loaded, env)).toMatchObject({ _tag: 'key' });
  });

  it('a project file naming another key variable is not read until the origin is listed', () => {
    box.writeUser({ memory: { apiKeyEnv: 'MY_KEY' } });
    box.writeProject({ memory: { apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' } });
    const loaded = load();
    expect(loaded.trust.keyAllowed).toBe(false);
    expect(resolveApiKey(loaded, { AWS_SECRET_ACCESS_KEY: 'aws-secret' })._tag).toBe('withheld');
  });

  it('no key configured is reported as none', () => {
    expect(resolveApiKey(load(), {})).toEqual({ _tag: 'none', reason: 'no API key configured' });
  });
});
