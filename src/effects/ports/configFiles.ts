/**
 * Config files as memory_config reads and writes them: `src/adapters/fs/configFile.ts` on
 * disk, `src/adapters/fs/memoryConfigFiles.ts` its in-memory twin.
 */
import type { ConfigFileState } from '../../config/load.js';
import type { FileScope } from '../../config/resolve.js';

export interface ConfigFilePort {
  read(scope: FileScope, file: string): ConfigFileState;
  /** Writes only if the file still hashes to `expectedToken`; resolves to an error message or undefined. */
  write(file: string, scope: FileScope, expectedToken: string, data: unknown): Promise<string | undefined>;
}
