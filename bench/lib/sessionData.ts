/**
 * Generated pi session files for the import benchmarks: realistic line shapes (header, model
 * change, user prompts, assistant text with tool calls, tool results some of which fail),
 * written into a temp directory the benchmark removes. Never committed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WORDS = 'build test deploy config rollup vitest cache lockfile schema migration queue server recall retain bank session branch tool error fix'.split(' ');

const text = (seed: number, chars: number): string => {
  let out = '';
  let i = seed;
  while (out.length < chars) {
    i = (i * 1103515245 + 12345) & 0x7fffffff;
    out += `${WORDS[i % WORDS.length]} `;
  }
  return out.slice(0, chars);
};

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** One session of about `bytes` bytes; returns its text. */
export const sessionText = (index: number, cwd: string, bytes: number): string => {
  const id = `01a20b10-0000-7000-8000-${String(index).padStart(12, '0')}`;
  const lines = [JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-11-20T10:00:00.000Z', cwd })];
  let parent: string | null = hex8(index * 100_000);
  lines.push(JSON.stringify({ type: 'model_change', id: parent, parentId: null, timestamp: '2026-11-20T10:00:00.000Z', provider: 'faux', modelId: 'faux-1' }));
  let size = lines.join('\n').length;
  let n = 1;
  const push = (entry: Record<string, unknown>): void => {
    const id = hex8(index * 100_000 + n);
    n += 1;
    const line = JSON.stringify({ ...entry, id, parentId: parent, timestamp: '2026-11-20T10:00:01.000Z' });
    lines.push(line);
    size += line.length + 1;
    parent = id;
  };
  for (let turn = 0; size < bytes; turn += 1) {
    const seed = index * 1000 + turn;
    push({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: text(seed, 300 + (seed % 900)) }], timestamp: turn } });
    push({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: text(seed + 1, 400) }, { type: 'toolCall', id: `call-${seed}`, name: seed % 3 === 0 ? 'read' : 'bash', arguments: { command: text(seed + 2, 60) } }], api: 'faux', provider: 'faux', model: 'faux-1', stopReason: 'toolUse', timestamp: turn } });
    push({ type: 'message', message: { role: 'toolResult', toolCallId: `call-${seed}`, toolName: seed % 3 === 0 ? 'read' : 'bash', content: [{ type: 'text', text: text(seed + 3, 2000 + (seed % 6000)) }], isError: seed % 7 === 0, timestamp: turn } });
    push({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: text(seed + 4, 600) }], api: 'faux', provider: 'faux', model: 'faux-1', stopReason: 'stop', timestamp: turn } });
  }
  return `${lines.join('\n')}\n`;
};

/** Writes sessions of about `sessionBytes` each until `totalBytes`; returns files and bytes. */
export const writeSessionSet = (dir: string, cwd: string, totalBytes: number, sessionBytes: number): { files: number; bytes: number } => {
  let bytes = 0;
  let files = 0;
  while (bytes < totalBytes) {
    const body = sessionText(files, cwd, sessionBytes);
    writeFileSync(join(dir, `s${String(files).padStart(6, '0')}.jsonl`), body);
    bytes += Buffer.byteLength(body);
    files += 1;
  }
  return { files, bytes };
};
