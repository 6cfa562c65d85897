/**
 * Small JSON documents under `{state_dir}/memory/` (receipts, the last-recall sidecar):
 * `src/adapters/fs/stateFiles.ts` on disk, `src/adapters/fs/memoryStateFiles.ts` its twin.
 */
export interface StateFilePort {
  /** The parsed file, `undefined` when it does not exist; a read or parse failure is an error message. */
  readJson(file: string): Promise<{ readonly value?: unknown; readonly error?: string }>;
  /** Writes atomically; resolves to an error message, or undefined on success. */
  writeJson(file: string, data: unknown): Promise<string | undefined>;
}
