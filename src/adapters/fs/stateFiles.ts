/**
 * JSON sidecars the tools keep under `{state_dir}/memory/` (scope-migrate and git-seed
 * receipts): written atomically (temp, fsync, rename), read without ever throwing.
 */
import { mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { writeAtomic } from './atomicFile.js';
import { parseJsonText } from '../../config/jsonText.js';
import type { StateFilePort } from '../../effects/ports/stateFiles.js';

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
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
    return undefined;
  } catch (cause) {
    return `could not write ${file} (${(cause as NodeJS.ErrnoException).code ?? 'error'}); check the directory's permissions and free space`;
  }
};

export const fileStateFiles: StateFilePort = { readJson: readJsonFile, writeJson: writeJsonFile };
