/**
 * The import manifest port: one JSON document recording every imported session (its file,
 * documents and their content hashes), so a reimport is deterministic and a person can see
 * what memory holds from where. Implemented over `src/adapters/fs/stateFiles.ts`.
 */
export interface ImportManifestPort {
  /** The parsed file, `undefined` when absent; a read or parse failure is an error message. */
  read(): Promise<{ readonly value?: unknown; readonly error?: string }>;
  /** Writes atomically; resolves to an error message, or undefined on success. */
  write(data: unknown): Promise<string | undefined>;
  readonly path: string;
}
