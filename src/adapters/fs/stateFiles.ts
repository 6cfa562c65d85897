/**
 * JSON sidecars the tools keep under `{state_dir}/memory/` (scope-migrate and git-seed
 * receipts): written atomically (temp, fsync, rename), read without ever throwing. Symbolic
 * links and non-regular files are refused and reads are capped (src/adapters/fs/safeFile.ts).
 */
import * as path from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { writeAtomic } from './atomicFile.js';
import { ensurePrivateDir, isUnsafeFileError, readStateFile } from './safeFile.js';
import { parseJsonText } from '../../config/jsonText.js';
import { redactKnownValues } from '../../config/redact.js';
import type { StateFilePort } from '../../effects/ports/stateFiles.js';
import { errnoCode } from '../../codecs/errno.js';

export const readJsonFile = async (file: string): Promise<{ readonly value?: unknown; readonly error?: string }> => {
  let text: string | undefined;
  try {
    text = await readStateFile(file);
  } catch (cause) {
    if (isUnsafeFileError(cause)) return { error: cause.message };
    const code = errnoCode(cause);
    if (code === 'ENOTDIR') return {};
    return { error: `cannot read ${file} (${code ?? 'error'})` };
  }
  if (text === undefined) return {};
  const parsed = parseJsonText(text);
  if (isLeft(parsed)) return { error: `${file}: invalid JSON at line ${parsed.left.line}:${parsed.left.column}: ${parsed.left.reason}` };
  return { value: parsed.right };
};

export const writeJsonFile = async (file: string, data: unknown): Promise<string | undefined> => {
  try {
    await ensurePrivateDir(path.dirname(file));
    // Sidecars (last-recall.json, receipts) never hold a known secret value.
    await writeAtomic(file, redactKnownValues(`${JSON.stringify(data, null, 2)}\n`));
    return undefined;
  } catch (cause) {
    if (isUnsafeFileError(cause)) return `could not write ${file}: ${cause.message}`;
    return `could not write ${file} (${errnoCode(cause) ?? 'error'}); check the directory's permissions and free space`;
  }
};

export const fileStateFiles: StateFilePort = { readJson: readJsonFile, writeJson: writeJsonFile };
