/**
 * Retained turns are stored as the raw structured delta (a JSON array of messages). A server
 * without fact extraction recalls that JSON as is; shown to the model as `role: text` lines it
 * reads better and costs a fraction of the tokens. Anything else is left exactly as it was.
 */
const textOfContent = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.flatMap((part: unknown): string[] => {
    if (typeof part !== 'object' || part === null) return [];
    const p = part as { type?: unknown; text?: unknown; name?: unknown };
    if (p.type === 'text' && typeof p.text === 'string') return [p.text];
    if (p.type === 'toolCall' && typeof p.name === 'string') return [`[tool call ${p.name}]`];
    return [];
  });
  return parts.length === 0 ? undefined : parts.join(' ');
};

export const conversationText = (raw: string): string | undefined => {
  const trimmed = raw.trim();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const lines: string[] = [];
  for (const message of parsed) {
    if (typeof message !== 'object' || message === null) return undefined;
    const m = message as { role?: unknown; content?: unknown; toolName?: unknown };
    if (typeof m.role !== 'string') return undefined;
    const text = textOfContent(m.content);
    if (text === undefined) continue;
    const who = m.role === 'toolResult' && typeof m.toolName === 'string' ? `tool ${m.toolName}` : m.role;
    lines.push(`${who}: ${text.replace(/\s+/g, ' ').trim()}`);
  }
  return lines.length === 0 ? undefined : lines.join('\n');
};
