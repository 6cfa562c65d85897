/** A built `agent-memory serve` in its own process, for the paired benches: started, then stopped cleanly. */
import { spawn, type ChildProcess } from 'node:child_process';

/** Resolves once the server prints where it listens; `nodeArgs` go to node (a profiler's flags). */
export const startServe = (cli: string, dataDir: string, nodeArgs: readonly string[] = []): Promise<{ child: ChildProcess; url: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${cli} serve exited ${code} before listening`)));
  });

/** SIGTERM, so the server writes its snapshot; resolves when it has exited. */
export const stopServe = async (child: ChildProcess): Promise<void> => {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
};
