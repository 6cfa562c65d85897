/** `agent-memory serve`: runs the embedded memory server until SIGTERM, SIGINT or SIGHUP. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { piAgentDir } from '../../../config/load.js';
import { rememberSecretValues } from '../../../config/redact.js';
import type { Command } from '../commands.js';
import { startEmbeddedServer, UnsafeBindError } from '../../../server/index.js';
import { newLaunchToken } from '../../ui/security.js';
import { collectStartupGarbage } from '../startupGarbage.js';
import { capYoungGeneration } from '../youngGeneration.js';
import { lazyUiMount } from '../lazyUiMount.js';
import { announceBrowser } from '../browserAddress.js';
import type { Mimic } from '../../../server/index.js';
import { isOneOf } from '../../../codecs/codecs.js';
import { commandUsage, fitFor } from '../helpText.js';

const MIMICS: readonly Mimic[] = ['0.9', '0.10', 'legacy-0.7'];

const usage = commandUsage('serve', [
  'usage: agent-memory serve [--port N] [--host H] [--allowed-host NAME]... [--data-dir DIR | --in-memory] [--api-key-env NAME] [--mimic 0.9|0.10|legacy-0.7] [--no-ui]',
  '',
  '  --port N             port to listen on (default 8888; 0 picks a free one)',
  '  --host H             address to bind (default 127.0.0.1; any other address needs --api-key-env)',
  '  --allowed-host NAME  a Host header name to accept besides loopback names and --host (repeatable)',
  '  --data-dir DIR       where memories are kept (default memory-server in pi\'s agent dir: ~/.pi/agent, or PI_CODING_AGENT_DIR)',
  '  --in-memory          keep nothing on disk',
  '  --api-key-env NAME   require Authorization: Bearer <value of $NAME>',
  '  --mimic V            behave as Hindsight 0.9.1 (default), 0.10 or 0.7',
  '  --operation-delay-ms N  delay before async operations start (default 0)',
  '  --snapshot-every N   mutations between snapshots of the data dir (default 20000)',
  '  --no-ui              do not serve the memory browser at /ui (by default it is, to this machine only,',
  '                       for the current directory\'s project, behind a launch token: printed when the output',
  '                       is a terminal, and always in memory-browser-<port>.url in pi\'s agent dir, 0600)',
].join('\n'));

const fail = (message: string): number => {
  console.error(`agent-memory serve: ${message}\n\n${usage}`);
  return 2;
};

/**
 * Why the server did not start, in words a person can act on: a busy port, a data dir this
 * user cannot write, or the store's own message (a data dir another server holds says so).
 */
const startFailure = (error: unknown, port: number, dataDir: string | undefined): string => {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'EADDRINUSE') {
    return `port ${port} is already in use (another agent-memory serve, or another program): stop that one, or choose another port with --port N (0 picks a free one)`;
  }
  if ((code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST') && dataDir !== undefined) {
    return `cannot use the data dir ${dataDir} (${message}): make it a directory this user can write, or choose another with --data-dir DIR (or --in-memory)`;
  }
  return message;
};

const integer = (raw: string | undefined, fallback: number, name: string): number | string => {
  if (raw === undefined) return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : `${name} must be a non-negative integer, got "${raw}"`;
};

export const serveCommand: Command = {
  usage,
  run: async (argv) => {
    let values;
    try {
      values = parseArgs({
        args: [...argv],
        options: {
          port: { type: 'string' },
          host: { type: 'string' },
          'allowed-host': { type: 'string', multiple: true },
          'data-dir': { type: 'string' },
          'in-memory': { type: 'boolean' },
          'api-key-env': { type: 'string' },
          mimic: { type: 'string' },
          'operation-delay-ms': { type: 'string' },
          'snapshot-every': { type: 'string' },
          'no-ui': { type: 'boolean' },
        },
        strict: true,
      }).values;
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    const port = integer(values.port, 8888, '--port');
    if (typeof port === 'string') return fail(port);
    const delay = integer(values['operation-delay-ms'], 0, '--operation-delay-ms');
    if (typeof delay === 'string') return fail(delay);
    const snapshotEvery = integer(values['snapshot-every'], 20_000, '--snapshot-every');
    if (typeof snapshotEvery === 'string') return fail(snapshotEvery);
    const mimic = values.mimic ?? '0.9';
    if (!isOneOf(MIMICS, mimic)) return fail(`--mimic must be one of ${MIMICS.join(', ')}, got "${mimic}"`);
    let apiKey: string | undefined;
    const keyEnv = values['api-key-env'];
    if (keyEnv !== undefined) {
      apiKey = process.env[keyEnv];
      // The name is safe to print; the value never is.
      if (apiKey === undefined || apiKey.length === 0) return fail(`--api-key-env ${keyEnv}: that environment variable is not set; export it first`);
      // The server's own key is hidden from everything this process prints.
      rememberSecretValues([apiKey]);
    }
    if (values['in-memory'] === true && values['data-dir'] !== undefined) return fail('--in-memory and --data-dir exclude each other');
    const dataDir = values['in-memory'] === true ? undefined : (values['data-dir'] ?? join(piAgentDir(homedir(), process.env), 'memory-server'));

    const token = newLaunchToken();
    let address: ReturnType<typeof announceBrowser> | undefined;
    const mount =
      values['no-ui'] === true
        ? undefined
        : lazyUiMount(
            async (at) => {
              const { createUiHandler } = await import('../../ui/uiHandler.js');
              return createUiHandler({ cwd: process.cwd(), token, port: () => at.port, addressFile: () => address?.file(), server: { baseUrl: at.url, ...(apiKey === undefined ? {} : { apiKey }) } });
            },
            (message) => console.error(`agent-memory serve: ${message}`),
          );
    // V8 moves an allocation site's objects straight to the old generation once most of them
    // survive a scavenge. A server's scavenges run between requests, while the last request's
    // objects are still held, so its per-request sites were pretenured: every recall's garbage
    // then waited for a full collection (at 100k memories, 300 recalls peaked at 237-239 MB RSS
    // against 200-204 without, the same CPU per recall). The flag only tunes collection.
    setFlagsFromString('--no-allocation-site-pretenuring');
    // At most 8 MB of young generation instead of V8's 32 (youngGeneration.ts): start-up's
    // survivors grew it to the maximum, which then stayed resident for a few recalls' garbage.
    capYoungGeneration();
    let server;
    try {
      server = await startEmbeddedServer({
        ...(mount === undefined ? {} : { mount }),
        port,
        host: values.host ?? '127.0.0.1',
        allowedHosts: values['allowed-host'] ?? [],
        mimic,
        operationDelayMs: delay,
        snapshotEvery,
        ...(dataDir === undefined ? {} : { dataDir }),
        ...(apiKey === undefined ? {} : { apiKey }),
      });
    } catch (error) {
      if (error instanceof UnsafeBindError) return fail(error.message);
      console.error(`agent-memory serve: ${startFailure(error, port, dataDir)}`);
      return 1;
    }
    // Before anything is printed or the address written: a signal that came before its handler
    // ended the process by default, with no snapshot and the address file left behind.
    const stopped = new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        console.error(`${signal}: closing`);
        address?.remove();
        (mount?.close() ?? Promise.resolve()).then(() => server.close()).then(
          () => resolve(0),
          (error: unknown) => {
            console.error(`agent-memory serve: close failed: ${error instanceof Error ? error.message : String(error)}`);
            resolve(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      // The terminal it runs in was closed. By default that ended the process at once, with no
      // snapshot: the next start replayed every write since the last one (seconds at 100k).
      // Nothing printed can reach anyone now, and a write to the gone terminal must not throw.
      process.once('SIGHUP', () => {
        for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
        stop('SIGHUP');
      });
    });
    collectStartupGarbage();
    console.log(`listening on ${server.url}`);
    if (mount !== undefined) {
      mount?.listening({ url: server.url, port: server.port });
      // The token is a credential: printed only to a terminal, always in a 0600 file (browserAddress.ts).
      address = announceBrowser({ pageUrl: `${server.url}/ui/`, token, port: server.port, agentDir: piAgentDir(homedir(), process.env), terminal: process.stdout.isTTY === true });
      for (const line of address.lines) console.log(fitFor(process.stdout, process.env, line));
    }
    if (dataDir !== undefined) console.error(`data dir: ${dataDir}`);
    // Loopback keeps other machines out, not other accounts on this one: the data dir is 0700, the port is not.
    if (apiKey === undefined) {
      // Wrapped at words in a terminal: at 80 columns the terminal cut "(an" after its "a".
      console.error(
        fitFor(
          process.stderr,
          process.env,
          `no key: every account on this machine can read and change these memories through ${server.url}; on a shared machine start it with --api-key-env NAME (an environment variable that holds the key), then run /memory setup in pi: it asks for that variable's name`,
        ),
      );
    }
    return stopped;
  },
};
