/**
 * Reads a Claude Code transcript (`~/.claude/projects/<encoded cwd>/<session id>.jsonl`) into
 * pi-shaped entries, so one import path serves both hosts.
 *
 * The format is not documented by Anthropic; what is read here is what public descriptions of
 * the files agree on (fixtures in test/adapters/sessions are written from them):
 * - each line has `type`; conversation lines are `user` and `assistant`, with `uuid`,
 *   `parentUuid`, `sessionId`, `cwd`, `timestamp` and an Anthropic `message` ({role, content});
 * - other lines (`summary`, `file-history-snapshot`, `queue-operation`, `system`) carry no turn;
 * - `isSidechain` lines belong to a sub-agent and `isMeta` lines are the CLI's own notes: skipped;
 * - content blocks: `text`, `thinking`, `tool_use` {id, name, input}, `tool_result`
 *   {tool_use_id, content, is_error} (inside user lines), `image`.
 * A user line's tool results become pi `toolResult` messages chained after it, so a later line
 * whose parent is that line continues after the last of them.
 */
import type { SessionEntry } from '../../effects/ports/sessionFiles.js';
import type { ForeignLineParser } from './foreignSession.js';
import { isRecord as isObject, jsonLineReader, stringOf as str, type JsonRecord as Json } from './jsonRecord.js';


const CONVERSATION = new Set(['user', 'assistant']);
const KNOWN = new Set(['user', 'assistant', 'summary', 'system', 'file-history-snapshot', 'queue-operation', 'attachment', 'progress']);

// Claude Code's tool names, as pi names the same tools: `read`/`grep`/`find`/`ls` output is
// dropped in curated mode, whichever agent ran it.
const PI_TOOL: Readonly<Record<string, string>> = { Read: 'read', Grep: 'grep', Glob: 'find', LS: 'ls', Bash: 'bash', Edit: 'edit', MultiEdit: 'edit', Write: 'write' };
const toolName = (name: string): string => PI_TOOL[name] ?? name.toLowerCase();

/** A tool result's content: a string, or blocks of which the text ones are kept. */
const resultText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((b) => (isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? [b['text']] : [])).join('\n');
};

const imageBlock = (block: Json): Json => {
  const source = isObject(block['source']) ? block['source'] : {};
  const data = str(source['data']);
  return { type: 'image', mimeType: str(source['media_type']) ?? 'unknown', ...(data === undefined ? {} : { bytes: Math.floor((data.length * 3) / 4) }) };
};

/** A first line is Claude Code's when it is a known record type, or a message with a session id. */
export const looksLikeClaudeCode = (first: Json): boolean =>
  typeof first['type'] === 'string' && KNOWN.has(first['type']) && (typeof first['sessionId'] === 'string' || first['type'] === 'summary' || first['type'] === 'file-history-snapshot');

export const claudeCodeLineParser = (): ForeignLineParser => {
  const entries: SessionEntry[] = [];
  const damaged: { line: number; reason: string }[] = [];
  // uuid -> the id of the last entry that line produced, or for a line that produced none its
  // own parent: a later line naming it as parent continues from there.
  const lastOf = new Map<string, string | null>();
  const resolve = (uuid: string | undefined): string | null => (uuid === undefined ? null : lastOf.has(uuid) ? (lastOf.get(uuid) ?? null) : uuid);
  const toolNames = new Map<string, string>();
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let timestamp: string | undefined;

  const add = (entry: SessionEntry): string => {
    entries.push(entry);
    return entry.id;
  };

  const userLine = (uuid: string, parent: string | null, at: string | undefined, message: Json): void => {
    const content = message['content'];
    if (typeof content === 'string') {
      lastOf.set(uuid, add({ type: 'message', id: uuid, parentId: parent, ...(at === undefined ? {} : { timestamp: at }), message: { role: 'user', content } }));
      return;
    }
    if (!Array.isArray(content)) return;
    const userBlocks: Json[] = [];
    const results: Json[] = [];
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block['type'] === 'text' && typeof block['text'] === 'string') userBlocks.push({ type: 'text', text: block['text'] });
      else if (block['type'] === 'image') userBlocks.push(imageBlock(block));
      else if (block['type'] === 'tool_result') results.push(block);
    }
    let previous = parent;
    let n = 0;
    const nextId = (): string => (n++ === 0 ? uuid : `${uuid}:${n - 1}`);
    for (const result of results) {
      const callId = str(result['tool_use_id']) ?? '';
      previous = add({
        type: 'message',
        id: nextId(),
        parentId: previous,
        ...(at === undefined ? {} : { timestamp: at }),
        message: { role: 'toolResult', toolCallId: callId, toolName: toolNames.get(callId) ?? 'tool', isError: result['is_error'] === true, content: [{ type: 'text', text: resultText(result['content']) }] },
      });
    }
    if (userBlocks.length > 0) previous = add({ type: 'message', id: nextId(), parentId: previous, ...(at === undefined ? {} : { timestamp: at }), message: { role: 'user', content: userBlocks } });
    lastOf.set(uuid, previous);
  };

  const assistantLine = (uuid: string, parent: string | null, at: string | undefined, message: Json): void => {
    const content = message['content'];
    const blocks: Json[] = [];
    if (typeof content === 'string') blocks.push({ type: 'text', text: content });
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (!isObject(block)) continue;
        if (block['type'] === 'text' && typeof block['text'] === 'string') blocks.push({ type: 'text', text: block['text'] });
        else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string') blocks.push({ type: 'thinking', thinking: block['thinking'] });
        else if (block['type'] === 'tool_use' && typeof block['name'] === 'string') {
          const name = toolName(block['name']);
          const id = str(block['id']) ?? `${uuid}:call`;
          toolNames.set(id, name);
          blocks.push({ type: 'toolCall', id, name, arguments: block['input'] ?? {} });
        }
      }
    }
    if (blocks.length === 0) {
      lastOf.set(uuid, parent);
      return;
    }
    const model = str(message['model']);
    const stopReason = str(message['stop_reason']);
    lastOf.set(
      uuid,
      add({
        type: 'message',
        id: uuid,
        parentId: parent,
        ...(at === undefined ? {} : { timestamp: at }),
        message: { role: 'assistant', content: blocks, ...(model === undefined ? {} : { model }), ...(stopReason === undefined ? {} : { stopReason }) },
      }),
    );
  };

  const nextLine = jsonLineReader(damaged);
  return {
    host: 'claude-code',
    get header() {
      return sessionId === undefined ? undefined : { id: sessionId, cwd, timestamp };
    },
    entries,
    damaged,
    push: (line) => {
      const { lineNo, record, blank } = nextLine(line);
      if (record === undefined) return blank || lineNo > 1;
      if (typeof record['type'] !== 'string') {
        damaged.push({ line: lineNo, reason: `line ${lineNo}: field type: expected a string` });
        return lineNo > 1;
      }
      if (lineNo === 1 && !looksLikeClaudeCode(record)) return false;
      const uuid = str(record['uuid']);
      const parent = resolve(str(record['parentUuid']));
      if (!CONVERSATION.has(record['type']) || record['isSidechain'] === true || record['isMeta'] === true) {
        if (uuid !== undefined) lastOf.set(uuid, parent);
        return true;
      }
      const message = record['message'];
      if (uuid === undefined || !isObject(message)) {
        damaged.push({ line: lineNo, reason: `line ${lineNo}: field ${uuid === undefined ? 'uuid' : 'message'}: missing` });
        return true;
      }
      sessionId ??= str(record['sessionId']);
      cwd ??= str(record['cwd']);
      const at = str(record['timestamp']);
      timestamp ??= at;
      if (record['type'] === 'user') userLine(uuid, parent, at, message);
      else assistantLine(uuid, parent, at, message);
      return true;
    },
  };
};
