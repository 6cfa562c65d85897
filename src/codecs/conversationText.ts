/**
 * A conversation as a memory holds it, read back as what was said and by whom. Retained turns
 * are stored as the raw structured delta (a JSON array of pi messages) and a server may hand
 * back the whole array or a chunk of it cut anywhere; both read as statements here. Shared by
 * the recall block (`src/effects/session/recallConversation.ts`) and the embedded server's
 * observations (`src/server/features/observations.ts`), which would otherwise quote JSON.
 */

/** Who said it: the person (`user`), the agent, a tool, or nobody known (a note, a chat line). */
export type Speaker = 'user' | 'assistant' | 'tool' | undefined;

export interface Statement {
  readonly who: Speaker;
  readonly text: string;
  /** The tool whose output it is. */
  readonly tool?: string;
  /** A tool's error (a failed command, a refused call): what it printed, not a fact to state. */
  readonly error?: true;
}

const speakerOf = (role: string): Speaker => (role === 'user' ? 'user' : role === 'assistant' ? 'assistant' : role === 'toolResult' || role === 'bashExecution' ? 'tool' : undefined);

const folded = (text: string): string => text.replace(/\s+/g, ' ').trim();

const textOfContent = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  // Tool calls are what the agent did, not what anyone said: their results speak for them.
  const parts = content.flatMap((part: unknown): string[] => {
    if (typeof part !== 'object' || part === null) return [];
    const p = part as { type?: unknown; text?: unknown };
    return p.type === 'text' && typeof p.text === 'string' ? [p.text] : [];
  });
  return parts.length === 0 ? undefined : parts.join(' ');
};

/** A whole message array, or `undefined` when the text is not one. */
const wholeConversation = (trimmed: string): Statement[] | undefined => {
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const out: Statement[] = [];
  for (const message of parsed) {
    if (typeof message !== 'object' || message === null) return undefined;
    const m = message as { role?: unknown; content?: unknown; toolName?: unknown; isError?: unknown };
    if (typeof m.role !== 'string') return undefined;
    const text = textOfContent(m.content);
    if (text === undefined || folded(text) === '') continue;
    const who = speakerOf(m.role);
    out.push({ who, text: folded(text), ...(who === 'tool' && typeof m.toolName === 'string' ? { tool: m.toolName } : {}), ...(who === 'tool' && m.isError === true ? { error: true as const } : {}) });
  }
  return out;
};

// A key and a string value in a JSON text (the value may be cut off by the end of a chunk), or a tool result's error mark.
const FIELD = /"(role|content|text|type|toolName)"\s*:\s*"((?:[^"\\]|\\.)*)|"(isError)"\s*:\s*true/g;

/** A JSON string's body decoded; a body cut inside an escape loses the broken escape. */
const decoded = (body: string): string => {
  const whole = body.replace(/\\(?:u[0-9a-fA-F]{0,3})?$/, '');
  try {
    return JSON.parse(`"${whole}"`) as string;
  } catch {
    return whole.replace(/\\n/g, ' ').replace(/\\(.)/g, '$1');
  }
};

/** A chunk of a message array (cut anywhere): the messages' texts, in order, with their roles. */
const conversationFragment = (text: string): Statement[] | undefined => {
  if (!/"role"\s*:\s*"/.test(text)) return undefined;
  const out: Statement[] = [];
  // The chunk may open inside a message's text: what precedes the first closing quote, when it reads as prose.
  const lead = /^((?:[^"\\]|\\.)*)"/.exec(text);
  if (lead !== null && !/[[{]/.test(text.trimStart().slice(0, 1))) {
    const prose = folded(decoded(lead[1] ?? ''));
    if (prose.includes(' ')) out.push({ who: undefined, text: prose });
  }
  let who: Speaker;
  let tool: string | undefined;
  let error = false;
  let blockType = '';
  for (const m of text.matchAll(FIELD)) {
    const key = m[1] ?? m[3] ?? '';
    const value = m[2] ?? '';
    if (key === 'role') {
      who = speakerOf(value);
      tool = undefined;
      error = false;
    } else if (key === 'toolName') tool = value;
    else if (key === 'isError') error = true;
    else if (key === 'type') blockType = value;
    else if (key === 'content' || (key === 'text' && blockType === 'text')) {
      const said = folded(decoded(value));
      if (said !== '') out.push({ who, text: said, ...(who === 'tool' && tool !== undefined ? { tool } : {}), ...(who === 'tool' && error ? { error: true as const } : {}) });
    }
  }
  return out;
};

/** The statements of a message array, whole or a chunk of one; `undefined` when `trimmed` is not one. */
export const conversationStatements = (trimmed: string): Statement[] | undefined => wholeConversation(trimmed) ?? conversationFragment(trimmed);

/**
 * What a text says: a message array (whole or a chunk) as its messages' texts, one a line;
 * any other text as it is. What the embedded server's observations quote and group by.
 */
export const spokenText = (text: string): string => {
  const said = conversationStatements(text.trim());
  // A tool's error is what a failed command printed, not something said: no observation quotes it.
  return said === undefined ? text : said.filter((statement) => statement.error !== true).map((statement) => statement.text).join('\n');
};

const SAID_BY: Readonly<Record<Exclude<Speaker, undefined>, string>> = { user: 'User', assistant: 'Assistant', tool: 'Tool' };

/**
 * Who said a statement, as it is shown ("User", "Tool (bash)", "Tool error (bash)"); undefined
 * when nobody is known. A tool's error is said to be one: recalled as "Tool (x): …" it read as
 * a fact (fifth pass).
 */
export const saidBy = (s: Pick<Statement, 'who' | 'tool' | 'error'>): string | undefined =>
  s.who === undefined ? undefined : `${SAID_BY[s.who]}${s.error === true ? ' error' : ''}${s.tool === undefined ? '' : ` (${s.tool})`}`;

/**
 * A message array (whole or a chunk) on one line, each message after who said it
 * (`User: … · Assistant: …`); any other text as it is. Where a tool result or a reflect answer
 * lists memories one a line: a retained turn read as JSON syntax there (fifth pass).
 */
export const saidLine = (text: string): string => {
  const said = conversationStatements(text.trim());
  if (said === undefined || said.length === 0) return text;
  return said.map((s) => { const by = saidBy(s); return by === undefined ? s.text : `${by}: ${s.text}`; }).join(' · ');
};
