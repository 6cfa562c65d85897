import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';

/**
 * V8's own verdicts (`%ActiveTierIsTurbofan`, `%HasObjectElements`, ...), asked in a child
 * started with --allow-natives-syntax, the sources loaded through tsx: the script prints one
 * JSON object, read back here.
 */
export const askV8 = <T = Record<string, unknown>>(script: string): T => {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as T;
};
