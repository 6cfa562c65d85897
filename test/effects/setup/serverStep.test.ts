/**
 * Setup's server step when nothing answers, over a real client and a port bound and closed:
 * what a person reads in an 80-column terminal says what to do in the dialog itself (start the
 * embedded server with the printed command, "Check again", or "Use another server URL"), and
 * names no config field they would have to edit by hand.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileConfigFiles } from '../../../src/adapters/fs/configFile.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { createScriptedUi } from '../../../src/adapters/ui/scriptedUi.js';
import { loadConfig } from '../../../src/config/load.js';
import { resolveScope } from '../../../src/config/scope.js';
import { systemClock } from '../../../src/effects/ports/clock.js';
import { runGuide } from '../../../src/effects/setup/guide.js';
import type { UiPort } from '../../../src/effects/ports/ui.js';
import { startTestServer } from '../../helpers/embeddedServer.js';

const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

const roots: string[] = [];

/** A place with a user file naming `url`: the home, the repository and its config as loaded. */
const place = async (url: string) => {
  const root = await mkdtemp(join(tmpdir(), 'am-server-step-'));
  roots.push(root);
  const home = join(root, 'home');
  const cwd = join(root, 'repo');
  await mkdir(join(home, '.pi', 'agent'), { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url } }));
  return { home, cwd, loaded: loadConfig({ cwd, home, env: {} }) };
};
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('setup: the server step where nothing answers', () => {
  it('says what to do in words and choices of the dialog, in lines that fit 80 columns', async () => {
    const root = await mkdtemp(join(tmpdir(), 'am-server-step-'));
    roots.push(root);
    const home = join(root, 'home');
    const cwd = join(root, 'repo');
    const url = `http://127.0.0.1:${await closedPort()}`;
    await mkdir(join(home, '.pi', 'agent'), { recursive: true });
    await mkdir(cwd, { recursive: true });
    await writeFile(join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url } }));
    const loaded = loadConfig({ cwd, home, env: {} });
    const ui = createScriptedUi([{ cancel: true }]);
    const result = await runGuide({
      ui,
      files: fileConfigFiles,
      clock: systemClock,
      dispatch: async () => undefined,
      loaded,
      scope: resolveScope(loaded.config, { cwd }),
      scopeFor: (config) => resolveScope(config, { cwd }),
      env: {},
      openServer: (baseUrl) => createMemoryServer({ baseUrl, timeoutMs: 3_000, clock: systemClock }),
      serverCommand: 'node /opt/am/dist/pi/serve.mjs',
      via: 'command',
    });
    expect(result.outcome).toBe('cancelled');
    const title = ui.shown()[0] ?? '';
    expect(title).toMatch(new RegExp(`^Memory server: nothing answers at ${url.replace(/\./g, '\\.')} \\(connection refused\\)\\.\\n`));
    expect(title).toContain(`  node /opt/am/dist/pi/serve.mjs --port ${new URL(url).port}\n`);
    expect(title).toContain('then choose "Check again"');
    expect(title).toContain('"Use another server URL"');
    // A config field is for the settings screen or a file; here the dialog's own choices do it.
    expect(title).not.toMatch(/memory\.\w+/);
    // pi draws a dialog's title one column in: every line but the command fits 80 columns.
    const long = title.split('\n').filter((line) => !line.includes('serve.mjs') && line.length > 78);
    expect(long).toEqual([]);
    expect(ui.shown().slice(1)).toEqual(['Check again', 'Use another server URL', 'Skip this step']);
  });

  it('every title and choice of the whole walk fits an 80-column screen; a default on a long title goes to its own line', async () => {
    const server = await startTestServer({ persist: false, apiKey: 'serverstep-key-5d1c9e7a3b' });
    try {
      const { cwd, loaded } = await place(server.url);
      const titles: string[] = [];
      const options: string[] = [];
      // Takes each step's first real choice, the long ones where there are (the personal bank, the key's variable), and declines the review.
      const prefer = ['Use http', 'Read it from an environment variable', 'This project, and also recall', 'One bank for all'];
      const ui: UiPort = {
        interactive: true,
        select: async (title, offered) => {
          titles.push(title);
          options.push(...offered);
          return offered.find((o) => prefer.some((p) => o.startsWith(p))) ?? offered[0];
        },
        input: async (title) => {
          titles.push(title);
          return '';
        },
        // The review's message is the diff, whose paths are as long as they are.
        confirm: async (title) => {
          titles.push(title);
          return false;
        },
        notify: () => undefined,
        setStatus: () => undefined,
      };
      const result = await runGuide({
        ui, files: fileConfigFiles, clock: systemClock, dispatch: async () => undefined, loaded,
        scope: resolveScope(loaded.config, { cwd }), scopeFor: (config) => resolveScope(config, { cwd }), env: {},
        openServer: (baseUrl, apiKey) => createMemoryServer({ baseUrl, timeoutMs: 3_000, clock: systemClock, ...(apiKey === undefined ? {} : { apiKey }) }),
        serverCommand: 'node /opt/am/dist/pi/serve.mjs', via: 'command',
      });
      expect(result.outcome).not.toBe('written');
      // The walk reached the key's variable and the personal bank, whose titles ran past 80 with their default.
      expect(titles).toContain('Name of the environment variable that holds the key (its name, not the key)\n(Enter for MEMORY_API_KEY)');
      expect(titles).toContain('Your personal memory bank id (shared by all your projects)\n(Enter for personal)');
      const longTitleLines = titles.flatMap((t) => t.split('\n')).filter((l) => [...l].length > 78);
      expect(longTitleLines).toEqual([]);
      expect(options.filter((o) => [...o].length > 76)).toEqual([]);
    } finally {
      await server.dispose();
    }
  });
});
