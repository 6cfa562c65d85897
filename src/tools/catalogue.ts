/**
 * The tool catalogue: every tool as a host registers it (name, label, description, JSON
 * schema parameters) plus `run`. A host binding (pi's registerTool) needs nothing else: no
 * memory logic lives in the binding.
 */
import type { ToolContext } from './context.js';
import { memoryBankTool } from './memoryBank.js';
import { memoryConfigTool } from './memoryConfig.js';
import { memoryKnowledgeTool } from './memoryKnowledge.js';
import { memoryMentalModelTool } from './memoryMentalModel.js';
import { memoryRecallTool } from './memoryRecall.js';
import { memoryReflectTool } from './memoryReflect.js';
import { memoryRetainTool } from './memoryRetain.js';
import { memoryRetainGlobalTool } from './memoryRetainGlobal.js';
import { memoryScopeTool } from './memoryScope.js';
import { memoryScopeMigrateTool } from './memoryScopeMigrate.js';
import { memorySeedGitTool } from './memorySeedGit.js';
import { memoryStatusTool } from './memoryStatus.js';
import type { JsonSchema } from './params.js';
import type { ToolOutcome } from './result.js';
import { runTool, type ToolDefinition } from './tool.js';

export type ToolTier = 'core' | 'supported' | 'capability-gated';

export interface CatalogueEntry {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly promptSnippet: string;
  readonly tier: ToolTier;
  /** JSON Schema of the parameters (typebox 1.x accepts it as is). */
  readonly parameters: JsonSchema;
  /** Decodes `params`, then runs the tool; never throws. */
  readonly run: (params: unknown, ctx: ToolContext) => Promise<ToolOutcome>;
}

const entry = <A>(tool: ToolDefinition<A>, tier: ToolTier): CatalogueEntry => ({
  name: tool.name,
  label: tool.label,
  description: tool.description,
  promptSnippet: tool.promptSnippet,
  tier,
  parameters: tool.params.schema,
  run: (params, ctx) => runTool(tool, params, ctx),
});

export const toolCatalogue: readonly CatalogueEntry[] = [
  entry(memoryRecallTool, 'core'),
  entry(memoryRetainTool, 'core'),
  entry(memoryRetainGlobalTool, 'core'),
  entry(memoryReflectTool, 'core'),
  entry(memoryStatusTool, 'supported'),
  entry(memorySeedGitTool, 'supported'),
  entry(memoryScopeTool, 'supported'),
  entry(memoryConfigTool, 'supported'),
  entry(memoryBankTool, 'supported'),
  entry(memoryScopeMigrateTool, 'supported'),
  entry(memoryMentalModelTool, 'capability-gated'),
  entry(memoryKnowledgeTool, 'capability-gated'),
];

export const findTool = (name: string): CatalogueEntry | undefined => toolCatalogue.find((t) => t.name === name);

/** A host tool result (pi's AgentToolResult shape). */
export interface HostToolResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly details: unknown;
}

/** The error a host sees for a failed tool call; its message is already redacted. */
export class ToolCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ToolCallError';
  }
}

/**
 * Runs a catalogue entry the way pi expects: a result, or a thrown error (pi turns a throw
 * into an `isError` tool result carrying the message).
 */
export const executeForHost = async (tool: CatalogueEntry, params: unknown, ctx: ToolContext): Promise<HostToolResult> => {
  const outcome = await tool.run(params, ctx);
  if (!outcome.ok) throw new ToolCallError(outcome.error.message, outcome.error.code, outcome.error.field);
  return { content: [{ type: 'text', text: outcome.result.text }], details: outcome.result.details };
};
