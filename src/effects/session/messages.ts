/**
 * Conversation messages as a host hands them over (pi's `AgentMessage`): the fields the
 * session effects read, decoded loosely so a host's newer fields never break a turn.
 */
import { MODELS_TAG, RECALL_TAG } from '../../config/memoryText.js';
import * as t from 'io-ts';

const ContentBlock = t.intersection([
  t.type({ type: t.string }),
  t.partial({ text: t.string, thinking: t.string, name: t.string, id: t.string, arguments: t.unknown, mimeType: t.string }),
]);
type ContentBlock = t.TypeOf<typeof ContentBlock>;

export const HostMessage = t.intersection([
  t.type({ role: t.string }),
  t.partial({
    content: t.union([t.string, t.array(ContentBlock)]),
    /** Unix ms (pi) */
    timestamp: t.number,
    toolName: t.string,
    toolCallId: t.string,
    isError: t.boolean,
    model: t.string,
    stopReason: t.string,
    customType: t.string,
    /** bashExecution */
    command: t.string,
    output: t.string,
    exitCode: t.union([t.number, t.null]),
    summary: t.string,
  }),
]);
export type HostMessage = t.TypeOf<typeof HostMessage>;

/** The plain text of a message: text blocks joined; other blocks are not text. */
export const messageText = (m: HostMessage): string => {
  // Robust to shapes the codec would refuse: the context hook passes pi's messages through as is.
  const content: unknown = (m as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { text: string } => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('\n');
};

/** Opening tags of the blocks automatic recall injects; a message starting with one is ours. */
export { MODELS_TAG, RECALL_TAG };
const INJECTED_CUSTOM_TYPE = 'agent-memory-recall';

/** Recognises injected memory by prefix only, so prose that merely mentions the tag is kept. */
export const isInjectedMemory = (m: HostMessage): boolean => {
  if (typeof m !== 'object' || m === null) return false;
  if (m.customType === INJECTED_CUSTOM_TYPE) return true;
  if (m.role !== 'user' && m.role !== 'custom') return false;
  const text = messageText(m).trimStart();
  return text.startsWith(`<${RECALL_TAG}>`) || text.startsWith(`<${MODELS_TAG}>`);
};

/**
 * The names of memory's own tools (the contract's 12; `memoryTools.test.ts` holds this to the
 * tool catalogue). Their results are memory's, not the conversation's: a recall's memories
 * stored again would come back twice, and an error about memory's own setup ("User memory bank
 * ID is not configured") came back from recall as if it were a fact about the project.
 */
export const MEMORY_TOOL_NAMES: ReadonlySet<string> = new Set([
  'memory_recall',
  'memory_retain',
  'memory_retain_global',
  'memory_reflect',
  'memory_status',
  'memory_config',
  'memory_bank',
  'memory_mental_model',
  'memory_knowledge',
  'memory_scope',
  'memory_scope_migrate',
  'memory_seed_git',
]);

/** A result of one of memory's own tools. */
export const isMemoryToolResult = (m: HostMessage): boolean => m.role === 'toolResult' && MEMORY_TOOL_NAMES.has(m.toolName ?? '');
