/**
 * A person's side below the host: the first-run decision, the scripted UI twin, and the
 * config writer (diff, confirm, write; declined writes nothing; a failed second file puts the
 * first back) over the in-memory config files.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryConfigFiles } from '../../../src/adapters/fs/memoryConfigFiles.js';
import { createScriptedUi } from '../../../src/adapters/ui/scriptedUi.js';
import { commitWrite, planWrite, previewAndWrite } from '../../../src/effects/setup/configWriter.js';
import type { ConfigFilePort } from '../../../src/effects/ports/configFiles.js';
import { firstRunAction } from '../../../src/machines/setup/person.js';
import { resetGroup, settingsFile } from '../../../src/effects/setup/settings.js';
import { configFields } from '../../../src/config/fields.js';

describe('first run', () => {
  it('asks once where a UI can ask, tells without one, stays quiet when declined or set up', () => {
    const base = { state: 'unconfigured', interactive: true, declined: false, asked: false } as const;
    expect(firstRunAction(base)).toBe('ask');
    expect(firstRunAction({ ...base, interactive: false })).toBe('tell');
    expect(firstRunAction({ ...base, declined: true })).toBe('quiet');
    expect(firstRunAction({ ...base, asked: true })).toBe('quiet');
    expect(firstRunAction({ ...base, state: 'ready' })).toBe('quiet');
    // A config file it cannot read: the start-up notice says what to fix; setup could not write.
    expect(firstRunAction({ ...base, configUnreadable: true })).toBe('quiet');
    expect(firstRunAction({ ...base, interactive: false, configUnreadable: true })).toBe('quiet');
  });
});

describe('the scripted UI twin', () => {
  it('answers in order, by option prefix, and records what was shown', async () => {
    const ui = createScriptedUi(['Set up', true, 'http://x', { cancel: true }]);
    expect(await ui.select('Q?', ['Set up now', 'Not now'])).toBe('Set up now');
    expect(await ui.confirm('Sure?', 'diff')).toBe(true);
    expect(await ui.input('URL', 'http://')).toBe('http://x');
    expect(await ui.select('Again?', ['a', 'b'])).toBeUndefined();
    expect(ui.shown()).toEqual(['Q?', 'Set up now', 'Not now', 'Sure?', 'diff', 'URL', 'Again?', 'a', 'b']);
  });

  it('fails loudly on an answer its dialog does not offer, and asks nothing without a UI', async () => {
    await expect(createScriptedUi(['Never']).select('Q?', ['Set up now'])).rejects.toThrow('offers no "Never"');
    const headless = createScriptedUi([], { interactive: false });
    expect(await headless.select('Q?', ['a'])).toBeUndefined();
    expect(await headless.confirm('Q?', 'm')).toBe(false);
  });
});

describe('the config writer', () => {
  const user = '/home/p/.pi/agent/memory.json';
  const project = '/work/repo/.pi/memory.json';

  it('shows the diff (keys hidden), writes only after yes, and leaves files alone on no', async () => {
    const files = createMemoryConfigFiles({ [user]: '{"memory":{"apiKeyDirect":"secret-raw-key"}}' });
    const edits = [
      { scope: 'user' as const, path: user, set: [{ path: 'memory.baseUrl', value: 'http://h:1' }], unset: ['memory.apiKeyDirect'] },
      { scope: 'project' as const, path: project, set: [{ path: 'setupComplete', value: true }], unset: [] },
    ];
    const plan = planWrite(files, edits, '/home/p');
    if ('error' in plan) throw new Error(plan.error);
    expect(plan.diff).toBe(
      ['~/.pi/agent/memory.json:', '  memory.apiKeyDirect: (a key, not shown) -> (not set)', '  memory.baseUrl: (not set) -> "http://h:1"', '/work/repo/.pi/memory.json (new file):', '  setupComplete: (not set) -> true'].join('\n'),
    );
    const no = createScriptedUi([false]);
    expect((await previewAndWrite({ ui: no, files, home: '/home/p' }, edits, 'Write?'))._tag).toBe('declined');
    expect(files.read('user', user).data).toEqual({ memory: { apiKeyDirect: 'secret-raw-key' } });
    expect(files.read('project', project).exists).toBe(false);
    const yes = createScriptedUi([true]);
    expect((await previewAndWrite({ ui: yes, files, home: '/home/p' }, edits, 'Write?'))._tag).toBe('written');
    expect(files.read('user', user).data).toEqual({ memory: { baseUrl: 'http://h:1' } });
    expect(files.read('project', project).data).toEqual({ setupComplete: true });
  });

  it('names a file inside the project relative to it, one under the home with ~', () => {
    const files = createMemoryConfigFiles({});
    const plan = planWrite(files, [
      { scope: 'user', path: user, set: [{ path: 'enabled', value: false }], unset: [] },
      { scope: 'project', path: project, set: [{ path: 'enabled', value: false }], unset: [] },
    ], '/home/p', '/work/repo');
    if ('error' in plan) throw new Error(plan.error);
    expect(plan.diff).toBe(['~/.pi/agent/memory.json (new file):', '  enabled: (not set) -> false', '.pi/memory.json (new file):', '  enabled: (not set) -> false'].join('\n'));
  });

  it('puts the first file back when the second cannot be written', async () => {
    const twin = createMemoryConfigFiles({ [user]: '{"enabled":false}' });
    const refusing: ConfigFilePort = {
      read: (scope, file) => twin.read(scope, file),
      write: (file, scope, token, data) => (file === project ? Promise.resolve(`could not write ${file} (EACCES)`) : twin.write(file, scope, token, data)),
    };
    const plan = planWrite(refusing, [
      { scope: 'user', path: user, set: [], unset: ['enabled'] },
      { scope: 'project', path: project, set: [{ path: 'setupComplete', value: true }], unset: [] },
    ], '/home/p');
    if ('error' in plan) throw new Error(plan.error);
    expect(await commitWrite(refusing, plan)).toContain('EACCES');
    expect(twin.read('user', user).data).toEqual({ enabled: false });
  });

  it('a file that is not JSON stops the plan, naming it', () => {
    const files = createMemoryConfigFiles({ [project]: '{ nope' });
    const plan = planWrite(files, [{ scope: 'project', path: project, set: [{ path: 'agentUse', value: 'coding' }], unset: [] }], '/home/p');
    expect('error' in plan && plan.error).toContain(project);
  });
});

describe('settings', () => {
  it('the shared memory.apiKey reset clears both key fields; where memory goes is written to the user file', () => {
    expect(resetGroup(configFields.apiKeyEnv).map((f) => f.path)).toEqual(['memory.apiKeyEnv', 'memory.apiKeyDirect']);
    expect(settingsFile(configFields.baseUrl)).toBe('user');
    expect(settingsFile(configFields.trustedOrigins)).toBe('user');
    expect(settingsFile(configFields.projectBankId)).toBe('project');
    expect(settingsFile(configFields.scopeMode)).toBe('project');
  });
});
