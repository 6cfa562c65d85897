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

const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

const roots: string[] = [];
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
});
