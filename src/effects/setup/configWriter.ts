/**
 * The one way a person's answers reach a config file: plan the edits per file (read fresh),
 * show the diff, and only after the person confirms it write each file atomically with the
 * precondition that it still holds the bytes the diff was computed from. Declined, dismissed
 * or refused: nothing is written. A second file that fails to write puts the first back.
 */
import { applyConfigEdit } from '../../config/configEdit.js';
import { displayPath } from '../../config/displayPath.js';
import { fieldList } from '../../config/fields.js';
import type { ConfigFileState } from '../../config/load.js';
import type { FileScope } from '../../config/resolve.js';
import type { ConfigFilePort } from '../ports/configFiles.js';
import type { UiPort } from '../ports/ui.js';

export interface FileEdit {
  readonly scope: FileScope;
  readonly path: string;
  readonly set: readonly { readonly path: string; readonly value: unknown }[];
  readonly unset: readonly string[];
}

interface PlannedFile {
  readonly scope: FileScope;
  readonly path: string;
  readonly before: ConfigFileState;
  readonly after: Record<string, unknown>;
  readonly changes: readonly string[];
}

export interface WritePlan {
  readonly files: readonly PlannedFile[];
  /** Dotted paths that change, over all files. */
  readonly fields: readonly string[];
  /** The diff a person reads before confirming. */
  readonly diff: string;
}

const SECRET_PATHS = new Set(fieldList.filter((f) => f.secret === true).map((f) => f.path));

const leaves = (value: unknown, prefix = ''): Map<string, unknown> => {
  const out = new Map<string, unknown>();
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) for (const [k, v] of leaves(inner, prefix === '' ? key : `${prefix}.${key}`)) out.set(k, v);
  } else if (prefix !== '') out.set(prefix, value);
  return out;
};

const shown = (path: string, value: unknown): string => {
  if (value === undefined) return '(not set)';
  if (SECRET_PATHS.has(path)) return '(a key, not shown)';
  return JSON.stringify(value);
};


/** Reads each file now and computes its new content; an unreadable file stops the plan. */
export const planWrite = (files: ConfigFilePort, edits: readonly FileEdit[], home: string, cwd?: string): WritePlan | { readonly error: string } => {
  const planned: PlannedFile[] = [];
  for (const edit of edits) {
    if (edit.set.length === 0 && edit.unset.length === 0) continue;
    const before = files.read(edit.scope, edit.path);
    if (before.error !== undefined) return { error: `${before.error.message}. Fix the file by hand first; nothing was written.` };
    const after = applyConfigEdit(before.data, { set: edit.set, unset: edit.unset });
    const old = leaves(before.data);
    const now = leaves(after);
    const changes = [...new Set([...old.keys(), ...now.keys()])].filter((k) => JSON.stringify(old.get(k)) !== JSON.stringify(now.get(k)));
    if (changes.length === 0) continue;
    planned.push({ scope: edit.scope, path: edit.path, before, after, changes });
  }
  const diff = planned
    .map((p) =>
      [`${displayPath(p.path, home, cwd)}${p.before.exists ? '' : ' (new file)'}:`, ...p.changes.map((k) => `  ${k}: ${shown(k, leaves(p.before.data).get(k))} -> ${shown(k, leaves(p.after).get(k))}`)].join('\n'),
    )
    .join('\n');
  return { files: planned, fields: planned.flatMap((p) => p.changes), diff };
};

/** Writes a confirmed plan; undefined when every file was written, else why not (nothing left half-written). */
export const commitWrite = async (files: ConfigFilePort, plan: WritePlan): Promise<string | undefined> => {
  const done: PlannedFile[] = [];
  for (const file of plan.files) {
    const error = await files.write(file.path, file.scope, file.before.token, file.after);
    if (error !== undefined) {
      // Put back what this plan already wrote, so the files stay as the person last saw them.
      for (const written of done.reverse()) {
        const now = files.read(written.scope, written.path);
        if (written.before.exists) await files.write(written.path, written.scope, now.token, written.before.data ?? {});
      }
      return error;
    }
    done.push(file);
  }
  return undefined;
};

export type WriteOutcome =
  | { readonly _tag: 'written'; readonly plan: WritePlan }
  | { readonly _tag: 'unchanged' }
  | { readonly _tag: 'declined' }
  | { readonly _tag: 'failed'; readonly reason: string };

/** Shows the diff, asks, writes. `extra` adds lines under the diff (a bank to create...). */
export const previewAndWrite = async (
  deps: { readonly ui: UiPort; readonly files: ConfigFilePort; readonly home: string; readonly cwd?: string },
  edits: readonly FileEdit[],
  title: string,
  extra: readonly string[] = [],
): Promise<WriteOutcome> => {
  const plan = planWrite(deps.files, edits, deps.home, deps.cwd);
  if ('error' in plan) return { _tag: 'failed', reason: plan.error };
  if (plan.files.length === 0 && extra.length === 0) return { _tag: 'unchanged' };
  const ok = await deps.ui.confirm(title, [plan.diff === '' ? 'No config file changes.' : plan.diff, ...extra, '', 'Write this?'].join('\n'));
  if (!ok) return { _tag: 'declined' };
  const error = await commitWrite(deps.files, plan);
  return error === undefined ? { _tag: 'written', plan } : { _tag: 'failed', reason: error };
};
