/**
 * What automatic retain stores after a run: the raw structured delta of the conversation,
 * projected (injected memory dropped, tool results per config), stripped of private regions
 * and invisible characters, redacted, tagged and addressed to the session's document.
 */
import type { MemoryConfig } from '../../config/fields.js';
import { REDACTED, redact } from '../../config/redact.js';
import type { Scope } from '../../config/scope.js';
import type { IdsPort } from '../ports/ids.js';
import type { RetainItem } from '../ports/memoryServer.js';
import { sanitizeMemoryText } from './recallBlock.js';
import { isInjectedMemory, isMemoryToolResult, messageText, type HostMessage } from './messages.js';

/** The summary's length is a plain count here: an import's own options carry it too (`ImportOptions`). */
export type ProjectionConfig = Pick<MemoryConfig, 'importToolResults' | 'agentUse'> & { readonly importToolSummaryMaxChars: number };


export type ProjectedMessage = Record<string, string | boolean | ProjectedBlock[] | undefined>;
export interface ProjectedBlock {
  readonly type: 'text' | 'toolCall';
  readonly text?: string;
  readonly name?: string;
  readonly arguments?: string;
}

// `<private>…</private>`, any case; an unclosed opening tag hides everything after it. The
// tag's attributes hold no `<`, so `<private<private…` is read once, not from each `<`.
const PRIVATE = /<private\b[^<>]*>[\s\S]*?(?:<\/private\s*>|$)/gi;

/**
 * How much of a run's text `agent_end` cleans and keeps, in characters: one message at most
 * MESSAGE_KEPT_CHARS, a run at most RUN_KEPT_CHARS. The hook runs synchronously inside pi
 * (its write must be durable before pi may exit), so what it redacts is bounded whatever a
 * command printed: redaction is linear, and this bounds the line. pi's own tools already cut
 * their output at 50 KB; past the bound a message keeps its head and tail.
 */
const MESSAGE_KEPT_CHARS = 128_000;
export const RUN_KEPT_CHARS = 512_000;

/** `text` cut to `limit` characters: its head and its tail, with what was dropped said between them. */
const keepWithin = (text: string, limit: number): string => {
  if (text.length <= limit) return text;
  const note = `\n[… ${text.length - limit} characters not kept: over the retain size limit …]\n`;
  const room = Math.max(0, limit - note.length);
  const tail = Math.floor(room / 4);
  return `${text.slice(0, room - tail)}${note}${tail === 0 ? '' : text.slice(text.length - tail)}`;
};

/** A `clean` for one run: each message cut to its share of what is left of the run's budget first. */
const boundedClean = (clean: (raw: string) => string = cleanText): ((raw: string) => string) => {
  let left = RUN_KEPT_CHARS;
  return (raw) => {
    const kept = keepWithin(raw, Math.min(MESSAGE_KEPT_CHARS, left));
    left = Math.max(0, left - kept.length);
    return clean(kept);
  };
};

/** The last line of a text, when it may name a secret whose value the next text gives. */
const CUE_MAX_CHARS = 200;
const MAY_NAME_SECRET = /key|token|secret|pass|pwd|credential/i;
const cueOf = (raw: string): string => {
  const line = raw.slice(raw.lastIndexOf('\n') + 1).slice(-CUE_MAX_CHARS);
  return MAY_NAME_SECRET.test(line) ? line : '';
};

const redactions = (text: string): number => text.split(REDACTED).length - 1;

/**
 * A `clean` for the texts of one run, in order, each cleaned after the last line of the one
 * before it when that line may name a secret: "the staging password is" sent, then the password
 * as a message of its own, was kept, where the same two lines in one message were hidden. The
 * text cleaned with the line before it is taken when it hides more; else the text alone.
 */
export const cuedClean = (clean: (raw: string) => string): ((raw: string) => string) => {
  let cue = '';
  // The cue cleaned, kept from the call that set it when the cue was that whole text (a short
  // one-line message: its clean is the cue's); else made when the split needs it.
  let cueCleaned: string | undefined;
  return (raw) => {
    const alone = clean(raw);
    let result = alone;
    if (cue !== '') {
      const cued = clean(`${cue}\n${raw}`);
      const lineEnd = cued.indexOf('\n');
      // Split where the line before ends, when it came through as itself or as cleaned alone.
      const head = lineEnd < 0 ? undefined : cued.slice(0, lineEnd);
      if (head !== undefined && (head === cue || head === (cueCleaned ?? clean(cue)))) {
        const tail = cued.slice(lineEnd + 1);
        if (redactions(tail) > redactions(alone)) result = tail;
      }
    }
    cue = cueOf(raw);
    cueCleaned = cue === raw ? alone : undefined;
    return result;
  };
};

/** `<private>` regions removed (an unclosed one hides the rest). */
export const withoutPrivate = (raw: string): string => raw.replace(PRIVATE, '');

/** Private regions removed, invisible characters stripped, secrets redacted (by `redactText`). */
export const cleanTextWith =
  (redactText: (text: string) => string) =>
  (raw: string): string =>
    redactText(sanitizeMemoryText(raw.replace(PRIVATE, '')).text);

/** Private regions removed, invisible characters stripped, secrets redacted. */
export const cleanText = cleanTextWith(redact);

const iso = (ms: number | undefined, now: number): string => new Date(ms ?? now).toISOString();

const toolResultText = (m: HostMessage, config: ProjectionConfig, clean: (raw: string) => string): string | undefined => {
  const text = clean(messageText(m));
  if (m.isError === true) return text;
  switch (config.importToolResults) {
    case 'errors-only':
      return undefined;
    case 'summary':
      return text.length > config.importToolSummaryMaxChars ? `${text.slice(0, config.importToolSummaryMaxChars)}…` : text;
    case 'content':
      return text;
  }
};

const argumentsText = (args: unknown, clean: (raw: string) => string): string => {
  try {
    return clean(typeof args === 'string' ? args : (JSON.stringify(args) ?? ''));
  } catch {
    return '';
  }
};

/** One host message as stored, or `undefined` when nothing of it is kept. `clean` is `cleanText` unless a caller only estimates sizes. */
export const projectMessage = (m: HostMessage, config: ProjectionConfig, now: number, clean: (raw: string) => string = cleanText): ProjectedMessage | undefined => {
  // Memory's own tools' results (recalled memories, memory's own errors) are not the conversation.
  if (isInjectedMemory(m) || isMemoryToolResult(m)) return undefined;
  const timestamp = iso(m.timestamp, now);
  switch (m.role) {
    case 'user': {
      const content = clean(messageText(m));
      return content.length === 0 ? undefined : { role: 'user', timestamp, content };
    }
    case 'assistant': {
      const blocks: ProjectedBlock[] = [];
      for (const block of Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content ?? '' }]) {
        if (block.type === 'text' && typeof block.text === 'string') {
          const text = clean(block.text);
          if (text.length > 0) blocks.push({ type: 'text', text });
        } else if (block.type === 'toolCall' && typeof block.name === 'string') {
          blocks.push({ type: 'toolCall', name: block.name, arguments: argumentsText(block.arguments, clean) });
        }
        // Thinking is the model's scratchpad: not kept.
      }
      if (blocks.length === 0) return undefined;
      return { role: 'assistant', timestamp, content: blocks, model: m.model, stopReason: m.stopReason };
    }
    case 'toolResult': {
      const content = toolResultText(m, config, clean);
      if (content === undefined) return undefined;
      return { role: 'toolResult', timestamp, toolName: m.toolName, isError: m.isError === true, content };
    }
    case 'bashExecution': {
      const content = clean(`$ ${m.command ?? ''}\n${m.output ?? ''}`);
      // A command that failed is marked as a tool error is, so recall says so rather than state its output.
      const failed = typeof m.exitCode === 'number' && m.exitCode !== 0;
      return { role: 'bashExecution', timestamp, ...(failed ? { isError: true } : {}), content };
    }
    default: {
      const content = clean(messageText(m) || (m.summary ?? ''));
      return content.length === 0 ? undefined : { role: m.role, timestamp, content };
    }
  }
};

/** A message's identity for the retain cursor: same message, same fingerprint, on any branch. */
export const fingerprint = (m: HostMessage, digest: IdsPort['digest']): string =>
  digest(JSON.stringify([m.role, m.timestamp ?? null, m.content ?? null, m.toolName ?? null, m.toolCallId ?? null, m.isError ?? null, m.stopReason ?? null])).slice(0, 24);

export interface SessionIdentity {
  readonly sessionId: string;
  readonly sessionFile?: string | undefined;
  readonly cwd: string;
  /** The user's name for the session: in the item's context, never in its document id. */
  readonly name?: string | undefined;
}

/** One document per host session, so every run of it appends to the same place. */
export const sessionDocumentId = (session: SessionIdentity, digest: IdsPort['digest']): string =>
  `pi-session:${digest(session.sessionFile ?? `${session.cwd}:${session.sessionId}`).slice(0, 16)}`;

/** The last segment of a POSIX path, as `path.basename` gives it (effects import no `node:path`). */
const baseName = (p: string): string => p.replace(/\/+$/, '').split('/').pop() ?? '';

export interface RetainJobDraft {
  readonly bankId: string;
  readonly documentId: string;
  readonly updateMode: 'append';
  readonly item: RetainItem;
  readonly async?: boolean;
}

/**
 * A run's jobs as the queue takes them: each one's identity is the run's key and its index, so
 * the same run offered again (a lost cursor write, an upgrade's legacy hand-off) has the same
 * job keys and the queue drops the copy.
 */
export const queueJobsOfRun = (runKey: string, drafts: readonly Pick<RetainJobDraft, 'bankId' | 'documentId' | 'updateMode' | 'item'>[]) =>
  drafts.map(({ bankId, documentId, updateMode, item }, index) => ({ bankId, documentId, updateMode, item, identity: `${runKey}#${index}` }));

export interface BuildRetainInput {
  readonly messages: readonly HostMessage[];
  readonly scope: Scope;
  readonly config: ProjectionConfig & Pick<MemoryConfig, 'retainAsync'>;
  readonly session: SessionIdentity;
  readonly now: number;
  readonly digest: IdsPort['digest'];
}

export interface BuiltRetain {
  /** One job per automatic write target (the project bank), or none. */
  readonly jobs: readonly RetainJobDraft[];
  readonly projected: number;
}

export const buildRetainJobs = (input: BuildRetainInput): BuiltRetain => {
  const { scope, config, session, now, digest } = input;
  const clean = boundedClean(cuedClean(cleanText));
  const projected = input.messages
    .map((m) => projectMessage(m, config, now, clean))
    .filter((m): m is ProjectedMessage => m !== undefined);
  if (projected.length === 0 || scope.automatic.write.length === 0) return { jobs: [], projected: projected.length };
  const project = baseName(session.cwd);
  const named = session.name === undefined ? '' : ` "${session.name}"`;
  const where = session.sessionFile === undefined ? `ephemeral session${named}` : `session ${baseName(session.sessionFile)}${named}`;
  const context =
    config.agentUse === 'conversation'
      ? `pi conversation/task session for "${project}", ${where}`
      : `pi coding session for project "${project}", ${where}`;
  const metadata: Record<string, string> = {
    cwd: session.cwd,
    source: 'pi',
    retainSource: 'auto',
    ...(session.sessionFile === undefined ? {} : { host_session_file: session.sessionFile }),
    ...(session.name === undefined ? {} : { host_session_name: session.name }),
  };
  const tags = [...new Set([...scope.projectRetainTags, `session:${session.sessionId}`])];
  const documentId = sessionDocumentId(session, digest);
  const content = JSON.stringify(projected, null, 2);
  const jobs = scope.automatic.write.map((target) => ({
    bankId: target.bankId,
    documentId,
    updateMode: 'append' as const,
    async: config.retainAsync,
    item: {
      content,
      context: redact(context),
      timestamp: new Date(now).toISOString(),
      tags,
      metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, redact(v)])),
      document_id: documentId,
      update_mode: 'append' as const,
    },
  }));
  return { jobs, projected: projected.length };
};
