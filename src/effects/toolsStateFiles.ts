/**
 * JSON sidecars the tools keep under `{state_dir}/memory/` (scope-migrate and git-seed
 * receipts): written atomically (temp, fsync, rename), read without ever throwing.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { parseJsonText } from '../config/jsonText.js';
import type { StateFilePort } from '../tools/context.js';

export const readJsonFile = async (file: string): Promise<{ readonly value?: unknown; readonly error?: string }> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    return { error: `cannot read ${file} (${code ?? 'error'})` };
  }
  const parsed = parseJsonText(text);
  if (isLeft(parsed)) return { error: `${file}: invalid JSON at line ${parsed.left.line}:${parsed.left.column}: ${parsed.left.reason}` };
  return { value: parsed.right };
};

export const writeJsonFile = async (file: string, data: unknown): Promise<string | undefined> => {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    return undefined;
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => undefined);
    return `could not write ${file} (${(cause as NodeJS.ErrnoException).code ?? 'error'}); check the directory's permissions and free space`;
  }
};

export const fileStateFiles: StateFilePort = { readJson: readJsonFile, writeJson: writeJsonFile };
