/**
 * What the memory browser says when a file of the trace directory cannot be read: what
 * happened and what to do, naming the file only. An error's own message carries the absolute
 * path (another account's home, when a run under sudo wrote the file), so it is never shown as
 * it is: the error's code is worded, and any path left in a message is cut to its last part.
 */
import * as path from 'node:path';
import { errnoCode } from '../../codecs/errno.js';

/** A message with every absolute path cut to its file name. */
export const withoutPaths = (message: string): string => message.replace(/(?:\/[^\s'",:)]+)+/g, (p) => path.basename(p));

/** Whether the error only says the file went away between the listing and the read (a compaction, a cleanup): the next poll sees the directory as it is. */
export const isGone = (err: unknown): boolean => errnoCode(err) === 'ENOENT';

/** One sentence for a journal or shared file the live view could not read. */
export const fileReadProblem = (name: string, err: unknown): string => {
  const code = errnoCode(err);
  if (code === 'EACCES' || code === 'EPERM') {
    return `${name} could not be read: permission denied (another account wrote it, as a pi run with sudo does). Give it to this account (chown) or delete it; the other runs are shown as usual.`;
  }
  if (code === 'ELOOP') return linkProblem(name);
  const what = code ?? withoutPaths(err instanceof Error ? err.message : String(err));
  return `${name} could not be read (${what}); the other runs are shown as usual, and this file is tried again at the next look (every 2 s, or 150 ms while this page is open).`;
};

/** A journal name that is a symbolic link or not a file: never followed nor read. */
export const linkProblem = (name: string): string =>
  `${name} is a symbolic link, which the memory browser never follows (a cloned repository can commit one); delete it if it is not yours.`;

export const notAFileProblem = (name: string): string => `${name} is not a regular file, so it is not read; delete or rename it if it is not a run's journal.`;

/** The trace directory could not be listed (it exists, but is not a directory, or not readable). */
export const traceDirProblem = (err: unknown): string => {
  const code = errnoCode(err);
  if (code === 'ENOTDIR') return 'The trace directory (memory/trace in the project\'s state directory) is a file, so no run can be listed: delete or move that file, and the next pi session writes its journals there.';
  if (code === 'EACCES' || code === 'EPERM') return 'The trace directory could not be listed: permission denied (another account made it). Give it to this account (chown -R) to see its runs.';
  return `The trace directory could not be listed (${code ?? withoutPaths(err instanceof Error ? err.message : String(err))}); it is tried again at the next look.`;
};
