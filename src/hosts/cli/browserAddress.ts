/**
 * Where the memory browser's launch token goes. The token opens a page that calls the memory
 * server with its key, so it is a credential: printed to a terminal (the person's own screen,
 * as Jupyter prints its tokenised URL), and always written to a file only this account reads,
 * `<pi agent dir>/memory-browser-<port>.url` (0600, created anew, never through a link). When
 * the output is not a terminal (redirected to `nohup.out` or a log file others may read, a
 * service's journal, a CI log) only the address without its token and the file's path are
 * printed. The file is removed when the server stops.
 *
 * A launch killed with SIGKILL never removes it: beside it, `memory-browser-<port>.pid` (0600)
 * holds the launch's pid, and each launch (and the doctor) removes the pair of any launch whose
 * process is gone. A file without a pid (an earlier version's), or whose process lives, stays.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { errnoCode } from '../../codecs/errno.js';
import { readStateFileSync } from '../../adapters/fs/safeFile.js';
import { dirNamesSync } from '../../adapters/fs/dirNames.js';
import { pidExists } from '../../adapters/fs/pidExists.js';

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

/** Where the pid of the launch that wrote `memory-browser-<port>.url` is kept. */
export const browserPidFile = (agentDir: string, port: number | string): string => path.join(agentDir, `memory-browser-${port}.pid`);

const unlinkIfThere = (file: string): void => {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
};

/**
 * Removes the address files (and pid files) of launches whose process is gone; returns the
 * address files removed. Never one without a readable pid or whose process is alive.
 */
export const removeStaleBrowserAddresses = (agentDir: string, alive: (pid: number) => boolean = pidExists): readonly string[] => {
  const names = dirNamesSync(agentDir);
  const removed: string[] = [];
  for (const port of new Set(names.flatMap((name) => /^memory-browser-(\d+)\.pid$/.exec(name)?.[1] ?? []))) {
    const pidFile = browserPidFile(agentDir, port);
    let text: string | undefined;
    try {
      text = readStateFileSync(pidFile, 64);
    } catch {
      continue; // A link or something else under the name: not ours to judge.
    }
    const pid = Number(text?.trim());
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    const url = path.join(agentDir, `memory-browser-${port}.url`);
    // The address first: a pid file left alone is swept again, an address without its pid never.
    const hadUrl = names.includes(path.basename(url));
    unlinkIfThere(url);
    unlinkIfThere(pidFile);
    if (hadUrl) removed.push(url);
  }
  return removed;
};

export const announceBrowser = (input: AnnounceInput): BrowserAddress => {
  // After `#`: a fragment never reaches a server, a log or a Referer (the page moves it to sessionStorage).
  const full = `${input.pageUrl}#token=${input.token}`;
  const file = browserUrlFile(input.agentDir, input.port);
  const pidFile = browserPidFile(input.agentDir, input.port);
  let written = false;
  try {
    mkdirSync(input.agentDir, { recursive: true, mode: 0o700 });
    // Earlier launches killed with SIGKILL left theirs; a failure here must not stop this launch.
    try {
      removeStaleBrowserAddresses(input.agentDir);
    } catch {
      // Left for the next launch or the doctor.
    }
    unlinkIfThere(file);
    unlinkIfThere(pidFile);
    // The pid before the address: a launch killed between the two leaves a pid file, which is swept.
    // `wx`: exclusive create, so a link planted under the name is never followed.
    writeFileSync(pidFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
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
    for (const f of [file, pidFile]) {
      try {
        unlinkSync(f);
      } catch {
        // Gone already: nothing to remove.
      }
    }
  };
  const writtenFile = (): string | undefined => (written ? file : undefined);
  if (input.terminal) return { lines: [`memory browser: ${full}`], file: writtenFile, remove };
  return { lines: [`memory browser: ${input.pageUrl} (the address with its launch token is in ${file}, readable by you only)`], file: writtenFile, remove };
};
