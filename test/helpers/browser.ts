/**
 * A real headless Chromium from npm packages alone (no download at run time).
 *
 * @sparticuz/chromium unpacks its binary, fonts and GL libraries into the bare temp dir
 * (`/tmp/chromium`, `/tmp/libGLESv2.so`) and runs whatever it finds there: on a machine shared
 * between users that fails for the second user (the first one's 0700 binary) and would run a
 * binary or library another user planted. So it is unpacked once per user into a private
 * directory (owned by this user, mode 0700, checked), through a staging directory renamed into
 * place, so that parallel test workers never run a half-written binary.
 */
import chromium from '@sparticuz/chromium';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium as playwright, type Browser } from 'playwright-core';
import { OUTER_TMPDIR } from './tempRoot.js';

const privateDir = (): string => {
  const uid = process.getuid?.() ?? 0;
  // Outside the run's own temp dir (tempRoot.ts), which is removed when the run ends.
  const dir = join(process.env[OUTER_TMPDIR] ?? tmpdir(), `agent-memory-chromium-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private directory of this user (owner ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}); remove it and run the tests again`);
  }
  return dir;
};

const unpack = async (): Promise<string> => {
  const dir = privateDir();
  const ready = join(dir, 'ready');
  if (existsSync(join(ready, 'chromium'))) return join(ready, 'chromium');
  const staging = mkdtempSync(join(dir, 'staging-'));
  // The package reads the temp dir synchronously when it starts each unpack, so the override
  // lasts only for the call itself.
  const saved = process.env['TMPDIR'];
  process.env['TMPDIR'] = staging;
  let unpacking: Promise<string>;
  try {
    unpacking = chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
  }
  await unpacking;
  try {
    renameSync(staging, ready);
  } catch {
    // Another worker put its copy in place first: use that one.
    rmSync(staging, { recursive: true, force: true });
  }
  return join(ready, 'chromium');
};

let unpacked: Promise<string> | undefined;

/** The Chromium binary, unpacked into this user's private directory on first use. */
export const chromiumPath = (): Promise<string> => (unpacked ??= unpack());

/** The package's recommended flags, for a caller that adjusts them. */
export const chromiumArgs: readonly string[] = chromium.args;

export const launchBrowser = async (args: readonly string[] = chromiumArgs): Promise<Browser> =>
  playwright.launch({ executablePath: await chromiumPath(), args: [...args], headless: true });
