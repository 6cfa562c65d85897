/**
 * The settings editor's field choices at 80 columns: each `path = value (source)` within 76
 * characters (pi draws " → " before it). A value from a user file outside the home (pi's
 * agent dir set by PI_CODING_AGENT_DIR) named the file's whole path in the label, which
 * wrapped it to the next line at 80 columns, where it read as another choice.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/adapters/clock/manualClock.js';
import { fileConfigFiles } from '../../../src/adapters/fs/configFile.js';
import { loadConfig } from '../../../src/config/load.js';
import type { UiPort } from '../../../src/effects/ports/ui.js';
import { runSettings } from '../../../src/effects/setup/settings.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('settings: the field choices', () => {
  it('fit 76 columns and say where each value comes from in a word', async () => {
    const root = await mkdtemp(join(tmpdir(), 'am-settings-labels-'));
    roots.push(root);
    const home = join(root, 'home');
    const agentDir = join(root, 'a-rather-long-directory-name-for-the-agent', 'agent');
    const cwd = join(root, 'repo');
    await mkdir(agentDir, { recursive: true });
    await mkdir(join(cwd, '.pi'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: 'http://127.0.0.1:46809', trustedProjects: [cwd, join(root, 'another-project-with-a-long-name')] } }));
    await writeFile(join(cwd, '.pi', 'memory.json'), JSON.stringify({ recall: { maxTokens: 900 } }));
    const env = { PI_CODING_AGENT_DIR: agentDir };
    const loaded = () => loadConfig({ cwd, home, env });
    const labels: string[] = [];
    const tabs: string[] = [];
    let tab = 0;
    const ui: UiPort = {
      interactive: true,
      select: async (title, options) => {
        if (title === 'Memory settings') {
          // Advanced shown first, then every tab once, then Done.
          if (tab === 0) {
            tab += 1;
            return 'Show advanced settings';
          }
          const next = options.filter((o) => !/advanced|Done/.test(o))[tab - 1];
          tab += 1;
          if (next === undefined) return 'Done';
          tabs.push(next);
          return next;
        }
        labels.push(...options.filter((o) => o !== 'Back'));
        return 'Back';
      },
      input: async () => undefined,
      confirm: async () => false,
      notify: () => undefined,
      setStatus: () => undefined,
    };
    await runSettings({ ui, files: fileConfigFiles, clock: createManualClock(), dispatch: async () => undefined, loaded, reload: async () => undefined });
    expect(tabs.length).toBeGreaterThan(5);
    expect(labels.filter((l) => [...l].length > 76)).toEqual([]);
    expect(labels).toContain('memory.baseUrl = http://127.0.0.1:46809 (user file)');
    expect(labels).toContain('recall.maxTokens = 900 (project file)');
    expect(labels.find((l) => l.startsWith('memory.trustedProjects = '))).toMatch(/… \(user file\)$/);
    expect(labels.filter((l) => l.includes(agentDir))).toEqual([]);
  });
});
