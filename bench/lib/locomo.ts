/**
 * Reads the LoCoMo dataset (CC BY-NC: read from a path given at run time, never copied into
 * the repository) into banks of turns and questions, as its README says it is scored: every
 * turn its own item with document id = dia_id, one bank per conversation.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export interface Turn {
  readonly diaId: string;
  /** `Speaker: text`, with an image caption when the turn shared one. */
  readonly content: string;
  readonly context: string;
  /** Session date plus the turn's position in seconds, ISO. */
  readonly timestamp: string;
}

export interface Question {
  readonly question: string;
  readonly evidence: readonly string[];
  readonly category: number;
}

export interface Conversation {
  readonly id: string;
  readonly turns: readonly Turn[];
  readonly questions: readonly Question[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC), or undefined. */
export const sessionTime = (text: string): number | undefined => {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  if (m === null) return undefined;
  const month = MONTHS.indexOf((m[5] ?? '').toLowerCase());
  if (month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + ((m[3] ?? '').toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
};

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export const readLocomo = (path: string): Conversation[] => {
  if (!existsSync(path)) throw new Error(`no LoCoMo file at ${path}`);
  const raw = readFileSync(path);
  const json = JSON.parse((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as {
    sample_id?: string;
    conversation: Record<string, unknown>;
    qa: { question: string; evidence?: string[]; category: number }[];
  }[];
  return json.map((c, i) => {
    const conv = c.conversation;
    const a = String(conv['speaker_a'] ?? 'A');
    const b = String(conv['speaker_b'] ?? 'B');
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .flatMap((m) => (m === null ? [] : [Number(m[1])]))
      .sort((x, y) => x - y);
    const turns: Turn[] = [];
    for (const s of sessions) {
      const start = sessionTime(String(conv[`session_${s}_date_time`] ?? '')) ?? Date.UTC(2023, 0, s);
      (conv[`session_${s}`] as RawTurn[]).forEach((t, j) => {
        const caption = t.blip_caption === undefined ? '' : ` [shares a photo: ${t.blip_caption}]`;
        turns.push({
          diaId: t.dia_id,
          content: `${t.speaker}: ${t.text}${caption}`,
          context: `conversation between ${a} and ${b}, session ${s}`,
          timestamp: new Date(start + j * 1000).toISOString(),
        });
      });
    }
    const questions = c.qa.map((q) => ({ question: String(q.question), evidence: q.evidence ?? [], category: q.category }));
    return { id: c.sample_id ?? `conversation-${i}`, turns, questions };
  });
};

/** Whether any evidence turn is among the first `k` distinct document ids. */
export const hitAt = (ranked: readonly string[], evidence: readonly string[], k: number): boolean => {
  const seen: string[] = [];
  for (const id of ranked) {
    if (!seen.includes(id)) seen.push(id);
    if (seen.length > k) break;
  }
  return seen.slice(0, k).some((id) => evidence.includes(id));
};
