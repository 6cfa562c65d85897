/** memory_status: setup, banks, scope, recall/retain flags, queue and sync readiness. Read-only. */
import type * as t from 'io-ts';
import type { ToolContext } from './context.js';
import { toolParams } from './params.js';
import { ok, type ToolOutcome } from './result.js';
import { buildStatusReport, statusLines, SYNC_WORDS } from './statusReport.js';
import { defineTool } from './tool.js';

export const MemoryStatusParams = toolParams('memory_status', {}, {});
export type MemoryStatusParams = t.TypeOf<typeof MemoryStatusParams.codec>;

const handler = async (_params: MemoryStatusParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const report = await buildStatusReport(ctx);
  const text = [
    'Memory status (! needs attention, * changed from default, - off on purpose):',
    ...statusLines(report.fields),
    ...(report.setupHint === undefined ? [] : [report.setupHint]),
    ...(report.sync.ready ? [] : [`Sync not ready: ${report.sync.reasons.map((r) => SYNC_WORDS[r]).join('; ')} (knowledge pages: ${report.sync.knowledgePages}).`]),
    ...report.problems.map((p) => `note: ${p}`),
  ].join('\n');
  return ok(text, report);
};

export const memoryStatusTool = defineTool<MemoryStatusParams>({
  name: 'memory_status',
  label: 'Memory Status',
  description:
    'Report memory status: setup gate, coding and life banks, project scope tags and their basis, recall/retain flags, the retain queue, server health, and sync readiness (queue depth, git seed receipt, knowledge-page capability). Read-only; use it before changing memory config.',
  promptSnippet: 'memory_status: check memory setup, banks, queue and server health',
  params: MemoryStatusParams,
  // It is how a user sees that memory is off and why.
  runsWhenDisabled: true,
  handler,
});
