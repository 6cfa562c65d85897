/**
 * Reads a Codex CLI rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, CODEX_HOME
 * defaulting to `~/.codex`) into pi-shaped entries. Written from public descriptions of the
 * files (fixtures in test/adapters/sessions follow them):
 * - the first line is `{"type":"session_meta","payload":{"id","cwd","timestamp",...}}`;
 * - turns are `response_item` lines whose payload is a `message` (role user / assistant;
 *   content blocks `input_text` / `output_text`), a `function_call` {name, arguments (JSON
 *   text), call_id} or a `function_call_output` {call_id, output};
 * - `event_msg` lines repeat what `response_item` lines say, and `turn_context`, `reasoning`
 *   (encrypted) and developer or system messages carry no turn: all skipped, as are the
 *   `<environment_context>` and `<user_instructions>` blocks Codex puts in every session.
 * A rollout is one linear conversation: entries are chained in file order as `codex-<n>`.
 */
import type { SessionEntry } from '../../effects/ports/sessionFiles.js';
import type { ForeignLineParser } from './foreignSession.js';
import { isRecord as isObject, jsonLineReader, stringOf as str, type JsonRecord as Json } from './jsonRecord.js';


const BOILERPLATE = /^\s*<(environment_context|user_instructions|permissions instructions)>/;
// Codex's tool names, as pi names the same tools.
const PI_TOOL: Readonly<Record<string, string>> = { shell: 'bash', exec_command: 'bash', local_shell: 'bash', apply_patch: 'edit' };

export const looksLikeCodex = (first: Json): first is Json & { readonly payload: Json } =>
  first['type'] === 'session_meta' && isObject(first['payload']) && typeof first['payload']['id'] === 'string';

const texts = (content: unknown): string[] =>
  Array.isArray(content) ? content.flatMap((b) => (isObject(b) && typeof b['text'] === 'string' && ['input_text', 'output_text', 'text'].includes(String(b['type'])) ? [b['text']] : [])) : typeof content === 'string' ? [content] : [];

/** Function arguments arrive as JSON text; an object reads better in memory, text is kept as is. */
const parseArguments = (raw: unknown): unknown => {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed;
  } catch {
    return { input: raw };
  }
};

/** `output` is text, or {content, metadata: {exit_code}} (older rollouts), or JSON text of that. */
const outputOf = (raw: unknown): { text: string; isError: boolean } => {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isObject(parsed) && 'output' in parsed) value = { content: parsed['output'], metadata: parsed['metadata'] };
    } catch {
      return { text: raw, isError: false };
    }
  }
  if (isObject(value)) {
    const metadata = isObject(value['metadata']) ? value['metadata'] : {};
    const exit = metadata['exit_code'];
    return { text: texts(value['content']).join('\n') || (str(value['content']) ?? ''), isError: typeof exit === 'number' && exit !== 0 };
  }
  return { text: typeof value === 'string' ? value : '', isError: false };
};

export const codexLineParser = (): ForeignLineParser => {
  const entries: SessionEntry[] = [];
  const damaged: { line: number; reason: string }[] = [];
  const toolNames = new Map<string, string>();
  let header: { id: string; cwd: string | undefined; timestamp: string | undefined } | undefined;
  let previous: string | null = null;
  const nextLine = jsonLineReader(damaged);

  const add = (at: string | undefined, message: Json): void => {
    const id = `codex-${entries.length}`;
    entries.push({ type: 'message', id, parentId: previous, ...(at === undefined ? {} : { timestamp: at }), message });
    previous = id;
  };

  const item = (at: string | undefined, payload: Json): void => {
    switch (payload['type']) {
      case 'message': {
        const role = payload['role'];
        if (role !== 'user' && role !== 'assistant') return;
        const kept = texts(payload['content']).filter((t) => !BOILERPLATE.test(t));
        if (kept.length === 0) return;
        add(at, { role, content: kept.map((text) => ({ type: 'text', text })) });
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const raw = str(payload['name']) ?? 'tool';
        const name = PI_TOOL[raw] ?? raw;
        const callId = str(payload['call_id']) ?? `codex-call-${entries.length}`;
        toolNames.set(callId, name);
        add(at, { role: 'assistant', content: [{ type: 'toolCall', id: callId, name, arguments: parseArguments(payload['arguments'] ?? payload['input']) }] });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = str(payload['call_id']) ?? '';
        const { text, isError } = outputOf(payload['output']);
        add(at, { role: 'toolResult', toolCallId: callId, toolName: toolNames.get(callId) ?? 'tool', isError, content: [{ type: 'text', text }] });
        return;
      }
      default:
        return;
    }
  };

  return {
    host: 'codex',
    get header() {
      return header;
    },
    entries,
    damaged,
    push: (line) => {
      const { lineNo, record, blank } = nextLine(line);
      if (record === undefined) return blank || lineNo > 1;
      if (lineNo === 1) {
        if (!looksLikeCodex(record)) return false;
        const meta = record.payload;
        header = { id: String(meta['id']), cwd: str(meta['cwd']), timestamp: str(meta['timestamp']) ?? str(record['timestamp']) };
        return true;
      }
      if (record['type'] !== 'response_item') return true;
      if (!isObject(record['payload'])) {
        damaged.push({ line: lineNo, reason: `line ${lineNo}: field payload: expected an object` });
        return true;
      }
      item(str(record['timestamp']), record['payload']);
      return true;
    },
  };
};
