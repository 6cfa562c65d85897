/**
 * The memory browser's Memories view, over the Hindsight API of the server the config names:
 * banks, a filtered list, one memory with its document and neighbours, recall with the
 * explanation of each result (`?explain=true` on the embedded server; a foreign server's own
 * recall trace otherwise), and curation through the server's routes (PATCH to edit or
 * invalidate, DELETE of the source document to delete). Every write carries `confirm`, the id
 * of what it changes, and is checked here against the server before it is sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { isRecord } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import { HttpError } from '../../server/http/errors.js';
import { bankPath, type HindsightAnswer, type HindsightLine } from './hindsight.js';
import { openEventStream } from './security.js';
import { Budget, FactType } from '../../wire/hindsight.js';
import { memoryStatements, speakerLabel } from '../../effects/session/recallConversation.js';

export interface ApiReply {
  readonly status: number;
  readonly body: unknown;
}

export type ApiRoute = (input: { readonly query: URLSearchParams; readonly body: unknown }) => Promise<ApiReply>;

const NonEmpty = t.refinement(t.string, (s) => s.trim().length > 0, 'non-empty string');

const Target = t.type({ bank: NonEmpty, id: NonEmpty, confirm: t.string });
const EditBody = t.intersection([Target, t.type({ text: NonEmpty })]);
const InvalidateBody = t.intersection([Target, t.partial({ reason: t.string })]);
const RecallBody = t.intersection([
  t.type({ bank: NonEmpty, query: NonEmpty }),
  t.partial({ budget: Budget, types: t.array(FactType) }),
]);

export const decodeBody = <A>(codec: t.Type<A, unknown, unknown>, name: string, body: unknown): A => {
  const decoded = decodeWith(codec, `${name} request body`)(body ?? {});
  if (E.isLeft(decoded)) throw new HttpError(400, decoded.left.message);
  return decoded.right;
};

const required = (query: URLSearchParams, name: string): string => {
  const value = query.get(name);
  if (value === null || value.trim() === '') throw new HttpError(400, `the query parameter ${name} is required`);
  return value;
};

/** The server's answer as it is (status and body), so its own error reaches the page. */
const passOn = (answer: HindsightAnswer): ApiReply => ({ status: answer.status, body: answer.body });

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const listOf = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/**
 * A retained pi turn is stored as the JSON of its messages: `shown` is what was said, by whom,
 * one line each, as the recall block gives it to the model. Other texts get no `shown`; `text`
 * stays as the server has it (Edit changes that).
 */
const withShown = (item: unknown): unknown => {
  const memory = record(item);
  const text = memory['text'] ?? memory['original_text'];
  if (typeof text !== 'string') return item;
  const statements = memoryStatements(text);
  if (!statements.some((s) => s.who !== undefined)) return item;
  const lines = statements.map((s) => {
    const speaker = speakerLabel(s.who, s.tool, s.error);
    return speaker === undefined ? s.text : `${speaker}: ${s.text}`;
  });
  return { ...memory, shown: lines.join('\n') };
};

/** A list answer with each item's `shown`. */
const listShown = (answer: HindsightAnswer): ApiReply => {
  if (answer.status !== 200 || !isRecord(answer.body)) return passOn(answer);
  const body = answer.body;
  return { status: 200, body: { ...body, items: listOf(body['items']).map(withShown) } };
};

/** A write's confirmation must name what it changes: a page that did not ask the user cannot guess it. */
const confirmed = (target: { readonly id: string; readonly confirm: string }): void => {
  if (target.confirm !== target.id) throw new HttpError(409, `not confirmed: confirm must repeat the id of the memory (${target.id}) after the user agreed`);
};

/** The memory as the server has it now; a write to a memory that is not there is refused here. */
const existing = async (line: HindsightLine, bank: string, id: string): Promise<Record<string, unknown>> => {
  const answer = await line.call('GET', bankPath(bank, `/memories/${encodeURIComponent(id)}`));
  if (answer.status === 404) throw new HttpError(404, `bank ${bank} has no memory ${id}; reload the list`);
  if (answer.status !== 200) {
    const detail = record(answer.body)['detail'];
    throw new HttpError(answer.status, typeof detail === 'string' ? detail : `the memory server answered HTTP ${answer.status}`);
  }
  return record(answer.body);
};

const curatable = (memory: Record<string, unknown>): void => {
  const type = memory['type'] ?? memory['fact_type'];
  if (type === 'observation') throw new HttpError(400, 'an observation is derived from other memories; edit or invalidate those instead');
};

export const memoryRoutes = (line: HindsightLine): Readonly<Record<string, ApiRoute>> => ({
  'GET /ui/api/banks': async () => passOn(await line.call('GET', '/v1/default/banks')),

  'GET /ui/api/memories': async ({ query }) => {
    const bank = required(query, 'bank');
    const tags = query.getAll('tag').filter((tag) => tag !== '');
    const answer = await line.call('GET', bankPath(bank, '/memories/list'), {
      query: {
        q: query.get('q') || undefined,
        type: query.get('type') || undefined,
        state: query.get('state') || undefined,
        document_id: query.get('document') || undefined,
        tags: tags.length === 0 ? undefined : tags,
        tags_match: tags.length === 0 ? undefined : 'all',
        limit: Number(query.get('limit') ?? '50'),
        offset: Number(query.get('offset') ?? '0'),
      },
    });
    return listShown(answer);
  },

  'GET /ui/api/memory': async ({ query }) => {
    const bank = required(query, 'bank');
    const id = required(query, 'id');
    const memory = await line.call('GET', bankPath(bank, `/memories/${encodeURIComponent(id)}`));
    if (memory.status !== 200) return passOn(memory);
    const documentId = record(memory.body)['document_id'];
    if (typeof documentId !== 'string' || documentId === '') return { status: 200, body: { memory: memory.body, document: null, neighbours: [] } };
    const [document, neighbours] = await Promise.all([
      line.call('GET', bankPath(bank, `/documents/${encodeURIComponent(documentId)}`)),
      line.call('GET', bankPath(bank, '/memories/list'), { query: { document_id: documentId, limit: 200 } }),
    ]);
    const items = listOf(record(neighbours.body)['items']);
    return {
      status: 200,
      body: {
        memory: withShown(memory.body),
        document: document.status === 200 ? withShown(document.body) : null,
        // The other memories of the same source document, oldest first: what was said around it.
        neighbours: items.filter((item) => record(item)['id'] !== id).reverse().map(withShown),
      },
    };
  },

  'POST /ui/api/recall': async ({ body }) => {
    const req = decodeBody(RecallBody, 'recall', body);
    // `explain` is the embedded server's own addition; a foreign server ignores it and still
    // answers the trace Hindsight defines, which the page shows as it comes.
    const answer = await line.call('POST', bankPath(req.bank, '/memories/recall'), {
      query: { explain: 'true' },
      body: { query: req.query, trace: true, budget: req.budget ?? 'mid', max_tokens: 4096, ...(req.types === undefined ? {} : { types: req.types }) },
    });
    if (answer.status !== 200) return passOn(answer);
    const recalled = record(answer.body);
    return { status: 200, body: { ...recalled, results: listOf(recalled['results']).map(withShown), embedded: answer.embedded } };
  },

  'POST /ui/api/memory/edit': async ({ body }) => {
    const req = decodeBody(EditBody, 'edit', body);
    confirmed(req);
    curatable(await existing(line, req.bank, req.id));
    return passOn(await line.call('PATCH', bankPath(req.bank, `/memories/${encodeURIComponent(req.id)}`), { body: { text: req.text } }));
  },

  'POST /ui/api/memory/invalidate': async ({ body }) => {
    const req = decodeBody(InvalidateBody, 'invalidate', body);
    confirmed(req);
    curatable(await existing(line, req.bank, req.id));
    return passOn(
      await line.call('PATCH', bankPath(req.bank, `/memories/${encodeURIComponent(req.id)}`), {
        body: { state: 'invalidated', ...(req.reason === undefined || req.reason === '' ? {} : { reason: req.reason }) },
      }),
    );
  },

  'POST /ui/api/memory/restore': async ({ body }) => {
    const req = decodeBody(Target, 'restore', body);
    confirmed(req);
    curatable(await existing(line, req.bank, req.id));
    return passOn(await line.call('PATCH', bankPath(req.bank, `/memories/${encodeURIComponent(req.id)}`), { body: { state: 'valid' } }));
  },

  // Hindsight deletes memories with the document they came from (a memory alone can only be
  // invalidated): the page says so and how many memories go with it before it asks.
  'POST /ui/api/memory/delete': async ({ body }) => {
    const req = decodeBody(Target, 'delete', body);
    confirmed(req);
    const memory = await existing(line, req.bank, req.id);
    curatable(memory);
    const documentId = memory['document_id'];
    if (typeof documentId !== 'string' || documentId === '') throw new HttpError(400, `memory ${req.id} has no source document to delete; invalidate it instead`);
    return passOn(await line.call('DELETE', bankPath(req.bank, `/documents/${encodeURIComponent(documentId)}`)));
  },
});

const MEMORY_POLL_MS = 1_000;

/**
 * `GET /ui/api/stream/memories?bank=`: memories as they are retained. Hindsight has no change
 * feed, so the newest page of the list is polled; each memory not seen before is sent once.
 */
export const streamMemories = (req: IncomingMessage, res: ServerResponse, line: HindsightLine, query: URLSearchParams): void => {
  const bank = required(query, 'bank');
  const stream = openEventStream(req, res);
  const seen = new Set<string>();
  let first = true;
  let busy = false;
  const poll = async (): Promise<void> => {
    if (busy || stream.closed()) return;
    busy = true;
    try {
      const answer = await line.call('GET', bankPath(bank, '/memories/list'), { query: { limit: 100 } });
      const items = answer.status === 200 ? listOf(record(answer.body)['items']) : [];
      for (const item of [...items].reverse()) {
        const id = record(item)['id'];
        if (typeof id !== 'string' || seen.has(id)) continue;
        seen.add(id);
        if (!first) stream.send('memory', withShown(item));
      }
      first = false;
    } finally {
      busy = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), MEMORY_POLL_MS);
  req.on('close', () => clearInterval(timer));
};
