/**
 * A session read from disk -> the documents an import retains. Pure and deterministic: the
 * same file and options give the same ids, contents and hashes on every run and machine.
 *
 * - Branches: `current-only` is the path from the root to the last entry (pi's leaf when it
 *   reopens a session); `all-leaves` adds every other leaf's path from where it forks off, so
 *   a shared prefix is imported once.
 * - Chunks: a segment of a branch becomes documents of at most 12 turns or 80 kB; a document's
 *   id is `<host>-import:<session id>:<first entry id>` (host: pi, claude-code, codex), which stays the same when the session
 *   grows (the last document's content grows and is replaced, earlier ones are unchanged).
 * - Modes (the contract's `importMode`): curated is the live retain projection (tool results
 *   per `importToolResults`, noisy read/grep/find/ls output dropped, `strict` drops more);
 *   raw keeps every message with full tool results; forensic also keeps injected memory,
 *   thinking and metadata entries. Secrets are redacted in every mode.
 * - Messages live retain already queued (the retain cursor's fingerprints for the session) are
 *   left out in every mode, so a session retained live and then imported is stored once.
 */
import { redact } from '../../config/redact.js';
import { redactingScope, type RedactedJson } from '../../config/redactedJson.js';
import { isInjectedMemory, isMemoryToolResult, messageText, HostMessage } from '../session/messages.js';
import { NOT_KEPT_CUSTOM_TYPE, NotKeptData } from '../session/notKept.js';
import { cleanTextWith, cuedClean, fingerprint, projectMessage, type ProjectedMessage } from '../session/retainProjection.js';
import type { IdsPort } from '../ports/ids.js';
import type { ImportOptions, PlanStats } from '../../machines/import/events.js';
import { estimateTokens } from '../../machines/import/decide.js';
import type { SessionEntry, SessionHost, SessionRead } from '../ports/sessionFiles.js';

const TURNS_PER_DOCUMENT = 12;
const MAX_DOCUMENT_BYTES = 80_000;
/** Tools whose successful output is noise in memory (file listings and contents). */
const NOISY_TOOLS: ReadonlySet<string> = new Set(['read', 'grep', 'find', 'ls']);
const STRICT_MAX_TOOL_CHARS = 2_048;
// Progress bars, spinners, status and UI chrome: successful output a person would not keep.
// eslint-disable-next-line no-control-regex -- an ANSI escape is one of the signs
const PROCESS_LIKE = /(\d{1,3}%\s*[|[]|[█▓▒░]{3,}|\b(?:downloading|compiling|installing|resolving|fetching|building)\b.*\.\.\.|^\s*\[\d+\/\d+\]|\r|\u001b\[)/im;

export type ModeOptions = Pick<ImportOptions, 'mode' | 'qualityProfile' | 'branches' | 'toolResults' | 'toolSummaryMaxChars'>;

/**
 * `final` (default): each kept text is cleaned and redacted, as it will be queued.
 * `estimate`: the same documents without cleaning, for a dry run's sizes and counts; its
 * contents are never stored or sent.
 */
export type BuildPurpose = 'final' | 'estimate';

/** What live retain already queued of one session: the retain cursor's fingerprints, and its digest. */
export interface LiveRetained {
  readonly fingerprints: ReadonlySet<string>;
  readonly digest: IdsPort['digest'];
}

export interface BuiltDocument {
  readonly documentId: string;
  /** The agent that wrote the session. */
  readonly host: SessionHost;
  readonly sessionId: string;
  readonly path: string;
  /** The leaf whose branch this document belongs to. */
  readonly leafId: string;
  readonly firstEntryId: string;
  /** For a branch other than the current one: the entry it forks off after. */
  readonly forkedAfter: string | null;
  readonly content: string;
  /** `utf8Length(content)`, summed from its items' where it is their join. */
  readonly bytes: number;
  /** `final` documents: the redactor's proof that every string of `content` is redacted (the queue then does not redact it again). */
  readonly redactedContent?: RedactedJson;
  readonly timestamp: string | undefined;
  readonly items: number;
}

export interface BuiltSession {
  readonly documents: readonly BuiltDocument[];
  readonly stats: PlanStats;
}

interface Item {
  readonly entryId: string;
  readonly json: string;
  readonly proof: RedactedJson | undefined;
  readonly timestamp: unknown;
}

const entryTime = (entry: SessionEntry): number | undefined => {
  const ms = entry.timestamp === undefined ? NaN : Date.parse(entry.timestamp);
  return Number.isFinite(ms) ? ms : undefined;
};

const decodeMessage = (message: unknown): HostMessage | undefined => {
  // `is` first: a well-formed message is used as read, without the copy a decode makes.
  if (HostMessage.is(message)) return message;
  const decoded = HostMessage.decode(message);
  return decoded._tag === 'Right' ? decoded.right : undefined;
};

/** Path root -> leaf by parent ids; a cycle or a missing parent ends the walk. */
const pathTo = (byId: ReadonlyMap<string, SessionEntry>, leaf: SessionEntry): SessionEntry[] => {
  const out: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: SessionEntry | undefined = leaf;
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    out.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return out.reverse();
};

/**
 * A not-kept mark the live session left (see `../session/notKept.ts`). Every `agent-memory`
 * entry counts, whatever its data: it is the only entry the extension writes, and a damaged
 * one must not let the run it marks through.
 */
const isNotKeptMark = (entry: SessionEntry): boolean => entry.type === 'custom' && entry.customType === NOT_KEPT_CUSTOM_TYPE;

const isUserTurn = (entry: SessionEntry): boolean => {
  const m: unknown = entry.message;
  return entry.type === 'message' && typeof m === 'object' && m !== null && 'role' in m && m.role === 'user';
};

/**
 * The entries of runs the person chose not to keep (next-opt-out, memory off), dropped in
 * every mode, and how many runs. A mark drops its path back to the entry it names; a mark that
 * names none on its path, or does not decode, drops back to the last user turn before it, so a
 * damaged mark never lets an opted-out run through.
 */
export const notKeptEntries = (session: Pick<SessionRead, 'entries'>): { readonly ids: ReadonlySet<string>; readonly runs: number } => {
  const ids = new Set<string>();
  const marks = session.entries.filter(isNotKeptMark);
  // Nearly every session has none: no map is built for it.
  if (marks.length === 0) return { ids, runs: 0 };
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  for (const mark of marks) {
    const decoded = NotKeptData.decode(mark.data);
    const from = decoded._tag === 'Right' ? decoded.right.notKept.fromEntryId : undefined;
    const path = pathTo(byId, mark);
    const named = from === undefined ? -1 : path.findIndex((e) => e.id === from);
    let start = named;
    if (start === -1) {
      start = path.length - 1;
      while (start > 0 && !isUserTurn(path[start] ?? mark)) start -= 1;
    }
    for (const e of path.slice(start)) ids.add(e.id);
  }
  return { ids, runs: marks.length };
};

interface Segment {
  readonly leafId: string;
  /** The entry the segment continues from (a fork point), when it is not a whole branch. */
  readonly after: string | null;
  readonly entries: readonly SessionEntry[];
}

/** The branches to import, each entry in exactly one segment. */
export const segmentsOf = (session: Pick<SessionRead, 'entries'>, branches: ImportOptions['branches']): Segment[] => {
  const entries = session.entries;
  const last = entries[entries.length - 1];
  if (last === undefined) return [];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const current: Segment = { leafId: last.id, after: null, entries: pathTo(byId, last) };
  if (branches === 'current-only') return [current];
  const parents = new Set(entries.map((e) => e.parentId).filter((p): p is string => p !== null));
  const covered = new Set(current.entries.map((e) => e.id));
  const segments = [current];
  for (const leaf of entries) {
    if (parents.has(leaf.id) || covered.has(leaf.id)) continue;
    const full = pathTo(byId, leaf);
    const fork = full.findIndex((e) => !covered.has(e.id));
    if (fork === -1) continue;
    const rest = full.slice(fork);
    for (const e of rest) covered.add(e.id);
    segments.push({ leafId: leaf.id, after: fork === 0 ? null : (full[fork - 1]?.id ?? null), entries: rest });
  }
  return segments;
};

interface Counters {
  runsNotKept: number;
  liveRetained: number;
  rawMessages: number;
  keptItems: number;
  droppedToolResults: number;
  keptToolErrors: number;
}

const forensicMessage = (m: HostMessage, timestamp: string, cleanText: (raw: string) => string): ProjectedMessage | undefined => {
  const blocks = Array.isArray(m.content) ? m.content : [];
  const thinking = blocks.filter((b) => b.type === 'thinking' && typeof b.thinking === 'string').map((b) => cleanText(b.thinking ?? ''));
  const calls = blocks.filter((b) => b.type === 'toolCall').map((b) => `${b.name ?? '?'}(${cleanText(JSON.stringify(b.arguments ?? {}))})`);
  const images = blocks.filter((b) => b.type === 'image').map((b) => `[image ${b.mimeType ?? ''}]`);
  const text = cleanText(m.role === 'bashExecution' ? `$ ${m.command ?? ''}\n${m.output ?? ''}` : messageText(m) || (m.summary ?? ''));
  const parts = [...thinking.map((x) => `(thinking) ${x}`), text, ...calls.map((c) => `(tool call) ${c}`), ...images].filter((p) => p.length > 0);
  if (parts.length === 0) return undefined;
  return { role: m.role, timestamp, content: parts.join('\n'), ...(m.toolName === undefined ? {} : { toolName: m.toolName }), ...(m.isError === true ? { isError: true } : {}) };
};

/** One entry as the document keeps it, or undefined when the mode leaves it out. */
const projectEntry = (entry: SessionEntry, options: ModeOptions, counters: Counters, seenToolText: Set<string>, fallbackMs: number, cleanText: (raw: string) => string): ProjectedMessage | undefined => {
  const ms = entryTime(entry) ?? fallbackMs;
  // Made where it is used: a message's projection writes its own (from the message's time).
  const timestamp = (): string => new Date(ms).toISOString();
  if (entry.type === 'compaction' || entry.type === 'branch_summary') {
    const content = cleanText(entry.summary ?? '');
    return content.length === 0 ? undefined : { role: entry.type === 'compaction' ? 'compactionSummary' : 'branchSummary', timestamp: timestamp(), content };
  }
  if (entry.type === 'custom_message') {
    const m = decodeMessage({ role: 'custom', content: entry.content, customType: entry.customType });
    if (m === undefined || (options.mode !== 'forensic' && isInjectedMemory(m))) return undefined;
    const content = cleanText(messageText(m));
    return content.length === 0 ? undefined : { role: 'custom', timestamp: timestamp(), content, ...(entry.customType === undefined ? {} : { customType: entry.customType }) };
  }
  if (entry.type !== 'message') {
    // Extension state, labels, model and thinking-level changes: not conversation.
    if (options.mode !== 'forensic') return undefined;
    const { message: _m, ...rest } = entry;
    return { role: entry.type, timestamp: timestamp(), content: cleanText(JSON.stringify(rest)) };
  }
  const m = decodeMessage(entry.message);
  if (m === undefined) return undefined;
  counters.rawMessages += 1;
  if (options.mode === 'forensic') return forensicMessage(m, timestamp(), cleanText);
  if (m.role === 'toolResult') {
    // Memory's own tools' results are memory's, not the conversation (as automatic retain leaves them).
    if (isMemoryToolResult(m)) {
      counters.droppedToolResults += 1;
      return undefined;
    }
    if (m.isError === true) {
      counters.keptToolErrors += 1;
    } else {
      const noisy = options.mode === 'curated' && NOISY_TOOLS.has(m.toolName ?? '');
      // Only the strict profile reads a result's text here (and remembers it, for repeats).
      const strict = options.mode === 'curated' && options.qualityProfile === 'strict';
      const text = strict ? messageText(m) : '';
      const strictDrop = strict && (text.length > STRICT_MAX_TOOL_CHARS || PROCESS_LIKE.test(text) || seenToolText.has(text));
      if (strict) seenToolText.add(text);
      if (noisy || strictDrop || (options.mode === 'curated' && options.toolResults === 'errors-only')) {
        counters.droppedToolResults += 1;
        return undefined;
      }
    }
  }
  const toolResults = options.mode === 'raw' ? 'content' : options.toolResults;
  return projectMessage(m, { importToolResults: toolResults, importToolSummaryMaxChars: options.toolSummaryMaxChars, agentUse: 'coding' }, ms, cleanText);
};

// eslint-disable-next-line no-control-regex -- any character outside ASCII
const NON_ASCII = /[^\u0000-\u007f]/;

/** UTF-8 length without encoding (effects have no Buffer): 1-3 bytes a code unit, 4 a surrogate pair. */
export const utf8Length = (text: string): number => {
  // ASCII only (one regex scan, far faster than the loop below): one byte a character.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
};

/** Whether live retain already queued this entry's message (the same fingerprint the live path took it by). */
const retainedLive = (entry: SessionEntry, live: LiveRetained | undefined): boolean => {
  if (live === undefined || live.fingerprints.size === 0 || entry.type !== 'message') return false;
  // Live retain takes pi's message objects only when they read as host messages, so one that does not was never taken.
  return HostMessage.is(entry.message) && live.fingerprints.has(fingerprint(entry.message, live.digest));
};

/**
 * The documents of one session: branches segmented, entries projected, chunked by turns and
 * bytes. `live`: what live retain already queued of this session, left out.
 */
export const buildSessionDocuments = (session: SessionRead, options: ModeOptions, purpose: BuildPurpose = 'final', live?: LiveRetained): BuiltSession => {
  // `final`: each text redacted once, where it is made; the scope proves it to the queue.
  const scope = purpose === 'final' ? redactingScope() : undefined;
  const clean = scope === undefined ? (raw: string): string => raw : cleanTextWith(scope.redact);
  const notKept = notKeptEntries(session);
  const counters: Counters = { runsNotKept: notKept.runs, liveRetained: 0, rawMessages: 0, keptItems: 0, droppedToolResults: 0, keptToolErrors: 0 };
  const documents: BuiltDocument[] = [];
  const fallbackMs = session.timestamp === undefined ? 0 : Date.parse(session.timestamp) || 0;
  const host = session.host ?? 'pi';
  const sessionId = redact(session.sessionId);
  for (const segment of segmentsOf(session, options.branches)) {
    // Each text after the line before it, in the branch's order (a secret named in one message and given in the next).
    const segmentClean = scope === undefined ? clean : cuedClean(clean);
    // Repeats are judged per chunk (strict profile), so the set starts over with each one.
    let seenToolText = new Set<string>();
    let chunk: Item[] = [];
    let chunkBytes = 0;
    let turns = 0;
    const close = (): void => {
      const first = chunk[0];
      if (first === undefined) return;
      // The items' JSON, joined: the same text as JSON.stringify of the array, built once.
      const proofs = chunk.flatMap((item) => (item.proof === undefined ? [] : [item.proof]));
      const redactedContent = scope !== undefined && proofs.length === chunk.length ? scope.array(proofs) : undefined;
      const content = redactedContent?.text ?? `[${chunk.map((item) => item.json).join(',')}]`;
      // The items joined (each a JSON object's text, ASCII at both ends, and written as it is
      // by the scope's array when it is the scope's own): the UTF-8 length is the items' plus
      // the brackets and commas. Other content (an item redacted whole) is counted.
      const joined = redactedContent === undefined || (scope !== undefined && proofs.every(scope.owns));
      const bytes = joined ? chunkBytes + chunk.length + 1 : utf8Length(content);
      // Ids come from the session file: a secret in one must not reach the server in a document id, tag or context.
      documents.push({
        documentId: `${host}-import:${sessionId}:${redact(first.entryId)}`,
        host,
        sessionId,
        path: session.path,
        leafId: redact(segment.leafId),
        firstEntryId: redact(first.entryId),
        forkedAfter: segment.after === null ? null : redact(segment.after),
        content,
        bytes,
        ...(redactedContent === undefined ? {} : { redactedContent }),
        timestamp: typeof first.timestamp === 'string' ? first.timestamp : undefined,
        items: chunk.length,
      });
      chunk = [];
      chunkBytes = 0;
      turns = 0;
      seenToolText = new Set<string>();
    };
    for (const entry of segment.entries) {
      if (notKept.ids.has(entry.id)) continue;
      if (retainedLive(entry, live)) {
        counters.liveRetained += 1;
        continue;
      }
      const projected = projectEntry(entry, options, counters, seenToolText, fallbackMs, segmentClean);
      if (projected === undefined) continue;
      const proof = scope?.json(projected);
      const json = proof?.text ?? JSON.stringify(projected);
      const bytes = utf8Length(json);
      const isTurn = projected['role'] === 'user';
      if (chunk.length > 0 && ((isTurn && turns >= TURNS_PER_DOCUMENT) || chunkBytes + bytes > MAX_DOCUMENT_BYTES)) close();
      if (isTurn) turns += 1;
      chunk.push({ entryId: entry.id, json, proof, timestamp: projected['timestamp'] });
      chunkBytes += bytes;
      counters.keptItems += 1;
    }
    close();
  }
  return { documents, stats: counters as PlanStats };
};

/** Tokens a document costs the server, estimated from its length. */
export const documentTokens = (content: string): number => estimateTokens(content.length);
