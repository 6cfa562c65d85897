/**
 * Where the memory browser's launch token goes. The token opens a page that calls the memory
 * server with its key, so it is a credential: printed to a terminal (the person's own screen,
 * as Jupyter prints its tokenised URL), and always written to a file only this account reads,
 * `<pi agent dir>/memory-browser-<port>.url` (0600, created anew, never through a link). When
 * the output is not a terminal (redirected to `nohup.out` or a log file others may read, a
 * service's journal, a CI log) only the address without its token and the file's path are
 * printed. The file is removed when the server stops.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { errnoCode } from '../../codecs/errno.js';

export interface BrowserAddress {
  /** What to print on stdout. */
  readonly lines: readonly string[];
  /** The file the address with its token was written to, while it is there. */
  readonly file: () => string | undefined;
  /** Removes the file (idempotent). */
  readonly remove: () => void;
}

export interface AnnounceInput {
  /** The page's address without the token, e.g. `http://127.0.0.1:8888/ui/`. */
  readonly pageUrl: string;
  readonly token: string;
  readonly port: number;
  readonly agentDir: string;
  /** Whether stdout is a terminal (`process.stdout.isTTY`). */
  readonly terminal: boolean;
}

export const browserUrlFile = (agentDir: string, port: number): string => path.join(agentDir, `memory-browser-${port}.url`);

export const announceBrowser = (input: AnnounceInput): BrowserAddress => {
  // After `#`: a fragment never reaches a server, a log or a Referer (the page moves it to sessionStorage).
  const full = `${input.pageUrl}#token=${input.token}`;
  const file = browserUrlFile(input.agentDir, input.port);
  let written = false;
  try {
    mkdirSync(input.agentDir, { recursive: true, mode: 0o700 });
    try {
      unlinkSync(file);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
    // `wx`: exclusive create, so a link planted under the name is never followed.
    writeFileSync(file, `${full}\n`, { flag: 'wx', mode: 0o600 });
    written = true;
  } catch (error) {
    written = false;
    if (!input.terminal) {
      return {
        lines: [`memory browser: ${input.pageUrl} (its launch token was not written to ${file}: ${errnoCode(error) ?? String(error)}; the token is printed only to a terminal)`],
        file: () => undefined,
        remove: () => undefined,
      };
    }
  }
  const remove = (): void => {
    if (!written) return;
    written = false;
    try {
      unlinkSync(file);
    } catch {
      // Gone already: nothing to remove.
    }
  };
  const writtenFile = (): string | undefined => (written ? file : undefined);
  if (input.terminal) return { lines: [`memory browser: ${full}`], file: writtenFile, remove };
  return { lines: [`memory browser: ${input.pageUrl} (the address with its launch token is in ${file}, readable by you only)`], file: writtenFile, remove };
};
