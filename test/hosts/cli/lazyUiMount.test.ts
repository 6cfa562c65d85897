/**
 * `serve`'s memory browser is built at its first request. Mounted on a real embedded server and
 * built with the real browser handler: before the server listens it answers 503 "starting"; a
 * build that fails answers 503 with the reason, and the next request builds again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyUiMount, type UiMountHandler } from '../../../src/hosts/cli/lazyUiMount.js';
import { createUiHandler } from '../../../src/hosts/ui/uiHandler.js';
import { newLaunchToken } from '../../../src/hosts/ui/security.js';
import { startEmbeddedServer } from '../../../src/server/index.js';
import { openLaunchAddress } from '../../helpers/uiLaunch.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('the memory browser built at its first request', () => {
  it('answers 503 until the server listens, 503 with the reason when a build fails, and builds again at the next request', async () => {
    const home = await mkdtemp(join(tmpdir(), 'am-lazy-ui-'));
    dirs.push(home);
    const token = newLaunchToken();
    const reported: string[] = [];
    let builds = 0;
    const mount = lazyUiMount(
      async (at): Promise<UiMountHandler> => {
        builds += 1;
        if (builds === 1) throw new Error('EMFILE: too many open files');
        return createUiHandler({ cwd: home, token, port: () => at.port, env: { HOME: home }, server: { baseUrl: at.url } });
      },
      (message) => reported.push(message),
    );
    const server = await startEmbeddedServer({ port: 0, host: '127.0.0.1', mount });
    try {
      const page = `${server.url}/ui/#token=${token}`;
      const starting = await fetch(`${server.url}/ui/`);
      expect(starting.status).toBe(503);
      expect(await starting.json()).toEqual({ detail: 'the memory browser is starting; reload in a moment' });
      expect(builds).toBe(0);

      mount.listening({ url: server.url, port: server.port });
      const failed = await fetch(`${server.url}/ui/`);
      expect(failed.status).toBe(503);
      const detail = 'the memory browser at /ui could not start: EMFILE: too many open files; reload to try again';
      expect(await failed.json()).toEqual({ detail });
      expect(reported).toEqual([detail]);
      // The API is not the browser: it keeps answering.
      expect((await fetch(`${server.url}/health`)).status).toBe(200);

      const retried = (await openLaunchAddress(page)).page;
      expect(retried.status).toBe(200);
      expect(await retried.text()).toContain('<html');
      expect((await openLaunchAddress(page)).page.status).toBe(200);
      expect(builds).toBe(2);
      // The shell holds no data; what does is behind the token.
      expect((await fetch(`${server.url}/ui/api/where`)).status).toBe(401);
      expect((await fetch(`${server.url}/ui/api/where`, { headers: { 'x-agent-memory-token': token } })).status).toBe(200);
    } finally {
      await mount.close();
      await server.close();
    }
  });
});
