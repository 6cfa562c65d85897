/**
 * The hub's on/off over real config files: off in this project or in every project, on again
 * from either, and a cloned repository's file that cannot turn on what the user turned off.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/adapters/clock/manualClock.js';
import { fileConfigFiles } from '../../../src/adapters/fs/configFile.js';
import { createScriptedUi, type ScriptedAnswer } from '../../../src/adapters/ui/scriptedUi.js';
import { loadConfig, type LoadedConfig } from '../../../src/config/load.js';
import type { FileScope } from '../../../src/config/resolve.js';
import { switchMemory } from '../../../src/effects/setup/settings.js';
import type { SetupEventInput } from '../../../src/machines/setup/events.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const place = async (files: { user?: unknown; project?: unknown } = {}) => {
  const root = await mkdtemp(join(tmpdir(), 'am-onoff-'));
  dirs.push(root);
  const home = join(root, 'home');
  const cwd = join(root, 'repo');
  const userFile = join(home, '.pi', 'agent', 'memory.json');
  const projectFile = join(cwd, '.pi', 'memory.json');
  await mkdir(join(home, '.pi', 'agent'), { recursive: true });
  await mkdir(join(cwd, '.pi'), { recursive: true });
  if (files.user !== undefined) await writeFile(userFile, JSON.stringify(files.user));
  if (files.project !== undefined) await writeFile(projectFile, JSON.stringify(files.project));
  const load = (): LoadedConfig => loadConfig({ cwd, home, env: {} });
  const read = async (file: string): Promise<unknown> => JSON.parse(await readFile(file, 'utf8').catch(() => 'null'));
  const flip = async (on: boolean, answers: readonly ScriptedAnswer[], offScope?: FileScope) => {
    let loaded = load();
    const events: SetupEventInput[] = [];
    const ui = createScriptedUi(answers);
    const deps = {
      ui, files: fileConfigFiles, clock: createManualClock(),
      dispatch: (e: SetupEventInput) => Promise.resolve(events.push(e)),
      loaded: () => loaded,
      reload: () => Promise.resolve(void (loaded = load())),
    };
    const result = await switchMemory(deps, on, offScope);
    return { result, events, shown: ui.shown().join('\n'), enabled: loaded.config.enabled };
  };
  return { load, read, flip, userFile, projectFile };
};

describe('turning memory off and on from the hub', () => {
  it('off in this project only writes the project file; other projects keep memory', async () => {
    const p = await place({ user: { bankId: 'mine' } });
    const off = await p.flip(false, [true], 'project');
    expect(off.result).toEqual({ text: 'Memory is off in this project (enabled: false in .pi/memory.json). Turn it back on from /memory.', level: 'info', written: true });
    expect(off.enabled).toBe(false);
    expect(await p.read(p.projectFile)).toEqual({ enabled: false });
    expect(await p.read(p.userFile)).toEqual({ bankId: 'mine' });
    expect(off.events.map((e) => e.type)).toEqual(['setup.config.written']);
    const on = await p.flip(true, [true]);
    expect(on.result.text).toBe('Memory is on in this project (enabled removed from .pi/memory.json).');
    expect(on.enabled).toBe(true);
    expect(await p.read(p.projectFile)).toEqual({});
  });

  it('off in every project writes the user file; on removes it there', async () => {
    const p = await place();
    const off = await p.flip(false, [true], 'user');
    expect(off.result.text).toBe('Memory is off in every project (enabled: false in ~/.pi/agent/memory.json). Turn it back on from /memory.');
    expect(await p.read(p.userFile)).toEqual({ enabled: false });
    expect(await p.read(p.projectFile)).toBeNull();
    const on = await p.flip(true, [true]);
    expect(on.result.text).toBe('Memory is on in every project (enabled removed from ~/.pi/agent/memory.json).');
    expect(on.enabled).toBe(true);
  });

  it('on undoes an off in both files with one answer, and the preview names both', async () => {
    const p = await place({ user: { enabled: false }, project: { enabled: false, recall: { budget: 'low' } } });
    expect(p.load().config.enabled).toBe(false);
    const on = await p.flip(true, [true]);
    expect(on.shown).toMatch(/^~\/\.pi\/agent\/memory\.json:$/m);
    expect(on.shown).toMatch(/^\.pi\/memory\.json:$/m);
    expect(on.result.text).toBe('Memory is on in every project (enabled removed from ~/.pi/agent/memory.json and .pi/memory.json).');
    expect(on.enabled).toBe(true);
    expect(await p.read(p.userFile)).toEqual({});
    expect(await p.read(p.projectFile)).toEqual({ recall: { budget: 'low' } });
  });

  it('a declined preview writes nothing and says so', async () => {
    const p = await place({ user: { enabled: false } });
    const on = await p.flip(true, [false]);
    expect(on.result).toEqual({ text: 'Memory on: not written.', level: 'info', written: false });
    expect(await p.read(p.userFile)).toEqual({ enabled: false });
    expect(on.enabled).toBe(false);
  });
});

describe('a project file and the master switch', () => {
  it('may turn memory off in its project', async () => {
    const p = await place({ project: { enabled: false } });
    const loaded = p.load();
    expect(loaded.config.enabled).toBe(false);
    expect(loaded.sources.enabled).toBe('project');
  });

  it('may not turn back on what the user file turned off everywhere, and the warning says how to', async () => {
    const p = await place({ user: { enabled: false }, project: { enabled: true } });
    const loaded = p.load();
    expect(loaded.config.enabled).toBe(false);
    expect(loaded.sources.enabled).toBe('user');
    const warning = loaded.warnings.find((w) => w.field === 'enabled');
    expect(warning?.message).toContain('a project file may turn it off, not back on (turn it on from /memory, "Turn memory on")');
  });

  it('its enabled: true stands when the user file says nothing (the default is on anyway)', async () => {
    const p = await place({ project: { enabled: true } });
    expect(p.load().config.enabled).toBe(true);
    expect(p.load().warnings.filter((w) => w.field === 'enabled')).toEqual([]);
  });
});
