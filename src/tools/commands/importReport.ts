/**
 * The import summary as text: one table for `agent-memory import` and `/memory import`, with
 * every skip grouped by its named reason and the first malformed lines by file and line.
 */
import type { SnapshotFrom } from 'xstate';
import { redact } from '../../config/redact.js';
import { escapeControls } from '../../config/memoryText.js';
import type { ImportMachine } from '../../machines/import/machine.js';
import { importSummary, type ImportView } from '../../machines/import/selectors.js';

const SHOWN = 5;

export const mb = (bytes: number): string => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`);
export const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/** Each skip's reason code in words for the table (the --json output keeps the codes). */
const SKIP_WORDS: Readonly<Record<string, string>> = {
  'empty-projection': 'nothing left to import',
  'duplicate-session': 'the same session as another file',
  'not-a-session': 'not a session file',
  'other-project': "another project's session",
  'before-since': 'not changed since --since',
  'too-large': 'too large',
  empty: 'empty file',
  symlink: 'symbolic link (not followed)',
  unreadable: 'could not be read',
  'no-such-path': 'no such path',
  'no-directory': 'no working directory recorded',
  'not-a-file': 'not a file',
  'gone-since-planning': 'gone since the plan was made',
  'already-imported': 'already imported',
  'exists-replace-disabled': 'already on the server (replacing is off)',
};
const skipWords = (reason: string): string => SKIP_WORDS[reason] ?? reason;

const countBy = <T>(items: readonly T[], key: (item: T) => string): [string, T[]][] => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups.entries()].sort((a, b) => b[1].length - a[1].length);
};

export const importTable = (view: ImportView, snapshot: SnapshotFrom<ImportMachine> | undefined, files: { readonly checkpoint: string; readonly manifest: string }): string[] => {
  const run = snapshot?.context.run ?? null;
  const plan = run?.plan ?? null;
  const rows: [string, string][] = [
    ['State', importSummary(view)],
    ...(run === null ? [] : ([['Mode', `${run.options.mode} / ${run.options.qualityProfile} / ${run.options.branches} / tool results ${run.options.toolResults}`], ['Bank', run.options.bankId]] satisfies [string, string][])),
    ['Sessions', String(view.sessions)],
    ['Documents', String(view.documents)],
    ['Bytes', mb(view.bytes)],
    ['Estimated tokens', String(view.tokens)],
    ['Estimated time', `~${duration(view.estimatedMs)} (estimate)`],
    ...(view.dryRun ? [] : ([['Sent to server', String(view.sent)], ['Queued', String(view.queued)], ['Skipped', `${view.skipped}${Object.keys(view.skippedBy).length === 0 ? '' : ` (${Object.entries(view.skippedBy).map(([r, n]) => `${skipWords(r)}: ${n}`).join(', ')})`}`]] satisfies [string, string][])),
    ...(plan === null
      ? []
      : ([
          ['Messages', `${plan.stats.rawMessages} read, ${plan.stats.keptItems} items kept, ${plan.stats.droppedToolResults} tool results dropped, ${plan.stats.keptToolErrors} tool errors kept${(plan.stats.runsNotKept ?? 0) > 0 ? `, ${plan.stats.runsNotKept ?? 0} run(s) not kept (opted out or memory off)` : ''}${(plan.stats.liveRetained ?? 0) > 0 ? `, ${plan.stats.liveRetained ?? 0} already retained live (left out)` : ''}`],
        ] satisfies [string, string][])),
    // A dry run writes neither: named bare, they read as files to look at (seventh pass).
    ['Checkpoint', `${escapeControls(files.checkpoint)}${view.dryRun ? ' (a dry run does not write it)' : ''}`],
    ['Manifest', `${escapeControls(files.manifest)}${view.dryRun ? ' (a dry run does not write it)' : ''}`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  const skipped = [...(run?.scanned?.skipped ?? []), ...(plan?.skipped ?? [])];
  if (skipped.length > 0) {
    lines.push('', `Not imported (${skipped.length}):`);
    for (const [reason, items] of countBy(skipped, (s) => s.reason)) {
      lines.push(`  ${skipWords(reason)}: ${items.length}`);
      for (const item of items.slice(0, SHOWN)) lines.push(`    ${escapeControls(item.path)}${item.detail === '' ? '' : ` (${escapeControls(item.detail)})`}`);
      if (items.length > SHOWN) lines.push(`    ... and ${items.length - SHOWN} more`);
    }
  }
  if (plan !== null && plan.malformed.length > 0) {
    lines.push('', `Malformed lines skipped (${plan.malformed.length}):`);
    for (const m of plan.malformed.slice(0, SHOWN)) lines.push(`  ${escapeControls(m.path)}:${m.line}`);
    if (plan.malformed.length > SHOWN) lines.push(`  ... and ${plan.malformed.length - SHOWN} more`);
  }
  const torn = plan?.sessions.filter((s) => s.pendingTailBytes > 0) ?? [];
  if (torn.length > 0) lines.push('', `Still being written (last line left for the next import): ${torn.map((s) => escapeControls(s.path)).join(', ')}`);
  return lines.map(redact);
};
