/** `agent-memory ui`: the memory browser and live machine inspector of a project, on a loopback port. */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../commands.js';
import { homedir } from 'node:os';
import { startUiServer } from '../../ui/uiServer.js';
import { piAgentDir } from '../../../config/load.js';
import { announceBrowser } from '../browserAddress.js';
import { commandUsage } from '../helpText.js';

const usage = commandUsage('ui', [
  'usage: agent-memory ui [--cwd DIR] [--port N] [--trace FILE]',
  '',
  '  --cwd DIR     the project whose memories, queue and sessions are shown (default: this directory)',
  '  --port N      port on 127.0.0.1 (default 0: a free one)',
  '  --trace FILE  a trace or journal file to offer for replay besides those of {state_dir}/memory/trace',
  '',
  'Prints the page\'s URL with a token made for this launch when the output is a terminal, and ' +
    'always writes it to memory-browser-<port>.url in pi\'s agent dir (0600); nothing is served without it.',
  'Runs until you press Ctrl+C (or it gets SIGTERM).',
].join('\n'));

const fail = (message: string): number => {
  console.error(`agent-memory ui: ${message}\n\n${usage}`);
  return 2;
};

export const uiCommand: Command = {
  usage,
  run: async (argv) => {
    let values;
    try {
      values = parseArgs({ args: [...argv], options: { cwd: { type: 'string' }, port: { type: 'string' }, trace: { type: 'string' } }, strict: true }).values;
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    if (values.port !== undefined && !/^\d+$/.test(values.port)) return fail(`--port must be a non-negative integer, got "${values.port}"`);
    let address: ReturnType<typeof announceBrowser> | undefined = undefined;
    const server = await startUiServer({
      addressFile: () => address?.file(),
      cwd: path.resolve(values.cwd ?? process.cwd()),
      port: values.port === undefined ? 0 : Number(values.port),
      ...(values.trace === undefined ? {} : { trace: path.resolve(values.trace) }),
    });
    // Before the address is written and printed: a signal that came between the printed line and
    // its handler ended the process by default and left the address file behind.
    const stopped = new Promise<number>((resolve) => {
      const stop = (): void => {
        address?.remove();
        void server.close().then(() => resolve(0));
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    const page = new URL(server.url);
    page.hash = '';
    // The token is a credential: printed only to a terminal, always in a 0600 file (browserAddress.ts).
    address = announceBrowser({ pageUrl: page.toString(), token: server.token, port: server.port, agentDir: piAgentDir(homedir(), process.env), terminal: process.stdout.isTTY === true });
    for (const line of address.lines) console.log(line);
    console.log('Open it in a browser on this machine; press Ctrl+C to stop.');
    return stopped;
  },
};
