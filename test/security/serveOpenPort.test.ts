/**
 * Attack (eighth session): another account on the same machine. `agent-memory serve` binds
 * loopback only and keeps its data dir 0700, but without `--api-key-env` its port answers any
 * local process: run as uid 65534 (`setpriv --reuid=65534`), a plain `fetch` of
 * `/v1/default/banks/<bank>/memories/list` read every memory. The default stays keyless (the
 * README's one-machine setup); `serve` now says so at start, with what to do on a shared
 * machine, and says nothing of it when a key is required.
 */
import { describe, expect, it } from 'vitest';
import { spawnServerProcess } from '../helpers/embeddedServer.js';
import { waitUntil } from '../helpers/waitUntil.js';

const WARNING = 'no key: every account on this machine can read and change these memories';

describe('agent-memory serve says when its port is open to every account', () => {
  it('without --api-key-env: the warning names the URL and the remedy', async () => {
    const server = await spawnServerProcess(['--in-memory', '--no-ui']);
    try {
      await waitUntil(() => server.output().includes(WARNING), 10_000, 'the warning');
      expect(server.output()).toContain(`${WARNING} through ${server.url}`);
      // The remedy is a step a person takes, not a file to edit by hand (tenth session).
      expect(server.output()).toContain("--api-key-env NAME (an environment variable that holds the key), then run /memory setup in pi: it asks for that variable's name");
    } finally {
      await server.kill();
    }
  }, 30_000);

  // Thirteenth session: at 80 columns the terminal cut the warning mid-word ("(a" / "n environment").
  it('in an 80-column terminal (COLUMNS) the warning is wrapped at words, every line within 80', async () => {
    const server = await spawnServerProcess(['--in-memory', '--no-ui'], { COLUMNS: '80' });
    try {
      await waitUntil(() => server.output().includes("variable's name"), 10_000, 'the warning');
      const lines = server.output().split('\n');
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
      // Read whole again (a wrapped line's rest is indented), the warning is unchanged.
      expect(server.output().replace(/\n +/g, ' ')).toContain(`${WARNING} through ${server.url}`);
      expect(server.output().replace(/\n +/g, ' ')).toContain("(an environment variable that holds the key)");
    } finally {
      await server.kill();
    }
  }, 30_000);

  it('with --api-key-env: no such warning, and a request without the key is refused', async () => {
    const server = await spawnServerProcess(['--in-memory', '--no-ui', '--api-key-env', 'SERVE_OPEN_PORT_KEY'], { SERVE_OPEN_PORT_KEY: 'a-long-enough-test-key-1234' });
    try {
      const res = await fetch(`${server.url}/v1/default/banks`);
      expect(res.status).toBe(401);
      expect(server.output()).not.toContain(WARNING);
    } finally {
      await server.kill();
    }
  }, 30_000);
});
