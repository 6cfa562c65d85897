/** Temp homes and projects for config tests. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface ConfigSandbox {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
  readonly stateDir: string;
  readonly userFile: string;
  readonly projectFile: string;
  writeUser(content: unknown): void;
  writeProject(content: unknown): void;
  cleanup(): void;
}

export const makeSandbox = (): ConfigSandbox => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-config-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work', 'my-project');
  const stateDir = path.join(cwd, '.pi');
  const userFile = path.join(home, '.pi', 'agent', 'memory.json');
  const projectFile = path.join(stateDir, 'memory.json');
  mkdirSync(path.dirname(userFile), { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  const write = (file: string, content: unknown) =>
    writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return {
    root, home, cwd, stateDir, userFile, projectFile,
    writeUser: (c) => write(userFile, c),
    writeProject: (c) => write(projectFile, c),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
};

/** `{a: {b: v}}` from `a.b` and `v`. */
export const nest = (dotted: string, value: unknown): Record<string, unknown> =>
  dotted
    .split('.')
    .reverse()
    .reduce<unknown>((acc, key) => ({ [key]: acc }), value) as Record<string, unknown>;
