/**
 * An in-memory `MemoryServer` for other teams' unit tests: banks, documents with
 * append/replace, substring recall with the five flat tag modes, async retain with
 * idempotent operation ids, mental models and knowledge pages, plus failure injection and a
 * call log. It does no I/O and keeps no timers; it is a twin of the contract, not of Hindsight.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type {
  BankProfile,
  BankSummary,
  BreakerState,
  Capabilities,
  CapabilityName,
  KnowledgeNode,
  MemoryServer,
  MentalModel,
  Presence,
  RecallHit,
  RetainItem,
  ServerFailure,
  TagsMatch,
} from '../../effects/ports/memoryServer.js';
import { deriveCapabilities, missing, recallNeeds, reflectNeeds, retainNeeds } from './capabilities.js';

export interface TwinCall {
  readonly op: string;
  readonly bankId?: string;
  readonly args: unknown;
}

/** Makes the next matching calls fail: `op` is a method name (`retain`), or every call when omitted. */
export interface TwinFault {
  readonly op?: string;
  readonly failure: ServerFailure;
  /** How many calls fail; every matching call when omitted. */
  readonly times?: number;
}

interface Fact {
  id: string;
  text: string;
  documentId: string;
  tags: string[];
  metadata: Record<string, string>;
  context?: string;
  mentionedAt?: string;
}

interface Doc {
  id: string;
  text: string;
  tags: string[];
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

interface Bank {
  summary: BankSummary;
  docs: Map<string, Doc>;
  facts: Fact[];
  models: Map<string, MentalModel>;
  nodes: Map<string, KnowledgeNode & { body?: string }>;
  operations: Map<string, number>;
}

export interface MemoryTwin extends MemoryServer {
  readonly calls: TwinCall[];
  inject(fault: TwinFault): void;
  clearFaults(): void;
  /** The stored text of a document, or undefined. */
  documentText(bankId: string, documentId: string): string | undefined;
  /** How many documents and facts a bank holds. */
  counts(bankId: string): { documents: number; facts: number };
  /** Replaces the advertised capabilities (e.g. to act as a 0.7 server). */
  setCapabilities(caps: Capabilities): void;
  setBreaker(state: BreakerState): void;
}

export interface MemoryTwinOptions {
  readonly baseUrl?: string;
  readonly capabilities?: Capabilities;
  /** Timestamps the twin writes; defaults to a fixed epoch so tests stay deterministic. */
  readonly now?: () => string;
}

const matchesTags = (factTags: readonly string[], wanted: readonly string[] | undefined, mode: TagsMatch = 'any'): boolean => {
  const tags = wanted ?? [];
  const untagged = factTags.length === 0;
  if (mode === 'exact') return tags.length === factTags.length && tags.every((tag) => factTags.includes(tag)) && factTags.every((tag) => tags.includes(tag));
  if (tags.length === 0) return true;
  const strict = mode === 'any_strict' || mode === 'all_strict';
  if (untagged) return !strict;
  return mode.startsWith('any') ? tags.some((tag) => factTags.includes(tag)) : tags.every((tag) => factTags.includes(tag));
};

const words = (text: string): string[] => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 2);

export const createMemoryTwin = (options: MemoryTwinOptions = {}): MemoryTwin => {
  const banks = new Map<string, Bank>();
  const calls: TwinCall[] = [];
  let faults: TwinFault[] = [];
  let caps = options.capabilities ?? deriveCapabilities({ api_version: '0.9.1', features: { embedded: true } }, true);
  let breakerState: BreakerState = { state: 'closed', failures: 0 };
  const breakerListeners = new Set<(s: BreakerState) => void>();
  let counter = 0;
  const now = options.now ?? (() => '2026-01-01T00:00:00.000Z');
  const nextId = (prefix: string): string => {
    counter += 1;
    return `${prefix}${counter.toString(16).padStart(8, '0')}`;
  };

  /** The bank, made on first use as the server does. */
  const bank = (bankId: string): Bank => {
    const existing = banks.get(bankId);
    if (existing !== undefined) return existing;
    const created: Bank = {
      summary: { bank_id: bankId, name: bankId, mission: '', created_at: now(), updated_at: now() },
      docs: new Map(),
      facts: [],
      models: new Map(),
      nodes: new Map(),
      operations: new Map(),
    };
    banks.set(bankId, created);
    return created;
  };

  /** Logs the call, applies an injected fault or a capability gap, else runs `body`. */
  const op =
    <A>(name: string, bankId: string | undefined, args: unknown, body: () => E.Either<ServerFailure, A>, needs: readonly CapabilityName[] = []): TaskEither<ServerFailure, A> =>
    () => {
      calls.push({ op: name, ...(bankId === undefined ? {} : { bankId }), args });
      const fault = faults.find((f) => f.op === undefined || f.op === name);
      if (fault !== undefined) {
        if (fault.times !== undefined) {
          faults = faults.flatMap((f) => (f !== fault ? [f] : f.times !== undefined && f.times > 1 ? [{ ...f, times: f.times - 1 }] : []));
        }
        return Promise.resolve(E.left(fault.failure));
      }
      const gap = missing(needs, caps);
      return Promise.resolve(gap === undefined ? body() : E.left(gap));
    };

  const notFound = (what: string): E.Either<ServerFailure, never> => E.left({ _tag: 'notFound', detail: `${what} not found` });

  const retainItem = (b: Bank, item: RetainItem, documentTags: readonly string[]): void => {
    const documentId = item.document_id ?? nextId('doc-');
    const tags = [...new Set([...(item.tags ?? []), ...documentTags])];
    const metadata = item.metadata ?? {};
    const old = b.docs.get(documentId);
    const text = item.update_mode === 'append' && old !== undefined ? `${old.text}\n${item.content}` : item.content;
    b.docs.set(documentId, { id: documentId, text, tags, metadata, createdAt: old?.createdAt ?? now(), updatedAt: now() });
    // One fact per document in the twin: the document text, re-tagged like Hindsight does.
    b.facts = b.facts.filter((fact) => fact.documentId !== documentId);
    b.facts.push({
      id: nextId('fact-'),
      text,
      documentId,
      tags,
      metadata,
      ...(item.context === undefined ? {} : { context: item.context }),
      ...(item.timestamp === undefined ? {} : { mentionedAt: item.timestamp }),
    });
    b.summary = { ...b.summary, last_write_at: now(), fact_count: b.facts.length };
  };

  const search = (b: Bank | undefined, query: string, tags: readonly string[] | undefined, mode: TagsMatch | undefined): RecallHit[] => {
    if (b === undefined) return [];
    const needles = words(query);
    return b.facts
      .map((fact) => ({ fact, score: needles.filter((needle) => fact.text.toLowerCase().includes(needle)).length }))
      .filter(({ fact, score }) => score > 0 && matchesTags(fact.tags, tags, mode))
      .sort((x, y) => y.score - x.score)
      .map(({ fact, score }) => ({
        id: fact.id,
        text: fact.text,
        type: 'world',
        document_id: fact.documentId,
        tags: fact.tags,
        metadata: fact.metadata,
        ...(fact.context === undefined ? {} : { context: fact.context }),
        ...(fact.mentionedAt === undefined ? {} : { mentioned_at: fact.mentionedAt }),
        scores: { final: score },
      }));
  };

  const nodesOf = (b: Bank, parent: string | null): KnowledgeNode[] =>
    [...b.nodes.values()]
      .filter((node) => (node.parent_id ?? null) === parent)
      .sort((x, y) => x.name.localeCompare(y.name))
      .map((node) => ({ id: node.id, kind: node.kind, name: node.name, parent_id: node.parent_id ?? null, tags: node.tags ?? [], children: nodesOf(b, node.id) }));

  const twin: MemoryTwin = {
    baseUrl: options.baseUrl ?? 'memory://twin',
    calls,
    inject: (fault) => {
      faults.push(fault);
    },
    clearFaults: () => {
      faults = [];
    },
    documentText: (bankId, documentId) => banks.get(bankId)?.docs.get(documentId)?.text,
    counts: (bankId) => ({ documents: banks.get(bankId)?.docs.size ?? 0, facts: banks.get(bankId)?.facts.length ?? 0 }),
    setCapabilities: (next) => {
      caps = next;
    },
    setBreaker: (state) => {
      breakerState = state;
      for (const listener of breakerListeners) listener(state);
    },

    capabilities: () => op('capabilities', undefined, {}, () => E.right(caps)),
    version: () => op('version', undefined, {}, () => E.right({ api_version: caps.apiVersion, features: caps.serverFlags })),
    listBanks: (q) =>
      op('listBanks', undefined, q, () => {
        const needle = q.q?.toLowerCase();
        const all = [...banks.values()].map((b) => b.summary).filter((s) => needle === undefined || s.bank_id.toLowerCase().includes(needle));
        const offset = q.offset ?? 0;
        return E.right(all.slice(offset, q.limit === undefined ? undefined : offset + q.limit));
      }),
    bankExists: (bankId) => op('bankExists', bankId, {}, () => E.right(banks.has(bankId))),
    ensureBank: (bankId, body) =>
      op('ensureBank', bankId, body, () => {
        const b = bank(bankId);
        b.summary = { ...b.summary, ...(body.name === undefined ? {} : { name: body.name }), ...(body.mission === undefined ? {} : { mission: body.mission }) };
        return E.right(undefined);
      }),
    updateBank: (bankId, body) =>
      op('updateBank', bankId, body, () => {
        const b = banks.get(bankId);
        if (b === undefined) return notFound(`Bank '${bankId}'`);
        b.summary = { ...b.summary, ...(body.name === undefined ? {} : { name: body.name }), ...(body.mission === undefined ? {} : { mission: body.mission }) };
        return E.right({ bank_id: bankId, name: b.summary.name ?? bankId, mission: b.summary.mission ?? '' });
      }),
    getBankProfile: (bankId) =>
      op('getBankProfile', bankId, {}, (): E.Either<ServerFailure, Presence<BankProfile>> => {
        if (!caps.features.profile) return E.right({ _tag: 'absent', reason: 'gone' } as const);
        const b = banks.get(bankId);
        return E.right(b === undefined ? ({ _tag: 'absent', reason: 'notFound' } as const) : ({ _tag: 'present', value: { bank_id: bankId, name: b.summary.name ?? bankId, mission: b.summary.mission ?? '' } } as const));
      }),
    getBankConfig: (bankId) =>
      op('getBankConfig', bankId, {}, () => E.right({ _tag: 'present', value: { bank_id: bankId, config: { retain_mission: banks.get(bankId)?.summary.mission ?? '' }, overrides: {} } } as const), ['bankConfig']),
    updateBankConfig: (bankId, updates) =>
      op('updateBankConfig', bankId, updates, () => {
        bank(bankId);
        return E.right({ bank_id: bankId, config: { ...updates }, overrides: { ...updates } });
      }, ['bankConfig']),
    getBankStats: (bankId) =>
      op('getBankStats', bankId, {}, () => {
        const b = banks.get(bankId);
        return E.right({ _tag: 'present', value: { bank_id: bankId, total_nodes: b?.facts.length ?? 0, total_documents: b?.docs.size ?? 0, total_links: 0, pending_operations: 0, failed_operations: 0 } } as const);
      }, ['bankStats']),

    retain: (bankId, req) =>
      op('retain', bankId, req, () => {
        const b = bank(bankId);
        if (req.items.some((item) => item.update_mode === 'append' && item.document_id === undefined)) {
          return E.left({ _tag: 'invalidRequest', status: 400, detail: "update_mode='append' requires a document_id" });
        }
        if (req.async === true && req.operation_id !== undefined && b.operations.has(req.operation_id)) {
          return E.right({ success: true, bank_id: bankId, items_count: b.operations.get(req.operation_id) ?? 0, async: true, operation_id: req.operation_id });
        }
        for (const item of req.items) retainItem(b, item, req.document_tags ?? []);
        if (req.async !== true) return E.right({ success: true, bank_id: bankId, items_count: req.items.length, async: false });
        const operationId = req.operation_id ?? nextId('op-');
        b.operations.set(operationId, req.items.length);
        return E.right({ success: true, bank_id: bankId, items_count: req.items.length, async: true, operation_id: operationId });
      }, retainNeeds(req)),
    recall: (bankId, req) =>
      op('recall', bankId, req, () => {
        const hits = search(banks.get(bankId), req.query, req.tags ?? undefined, req.tags_match);
        return E.right({ results: req.max_tokens === 0 ? [] : hits });
      }, recallNeeds(req)),
    reflect: (bankId, req) =>
      op('reflect', bankId, req, () => {
        const hits = search(banks.get(bankId), req.query, req.tags ?? undefined, req.tags_match);
        const text = hits.length === 0 ? `# ${req.query}\n\nNo relevant memories found.` : [`# ${req.query}`, '', ...hits.map((hit) => `- ${hit.text}`)].join('\n');
        return E.right({ text, ...(req.include?.facts == null ? {} : { based_on: { memories: hits.map((hit) => ({ id: hit.id, text: hit.text, type: 'world' })), mental_models: [], directives: [] } }) });
      }, reflectNeeds(req)),
    getOperation: (bankId, operationId) =>
      op('getOperation', bankId, { operationId }, () =>
        E.right({ operation_id: operationId, status: banks.get(bankId)?.operations.has(operationId) === true ? 'completed' : 'not_found' } as const),
      ),

    listDocuments: (bankId, q) =>
      op('listDocuments', bankId, q, () => {
        const items = [...(banks.get(bankId)?.docs.values() ?? [])].map((doc) => ({ id: doc.id, bank_id: bankId, tags: doc.tags, text_length: doc.text.length, created_at: doc.createdAt, updated_at: doc.updatedAt }));
        return E.right({ items, total: items.length });
      }),
    getDocument: (bankId, documentId) =>
      op('getDocument', bankId, { documentId }, () => {
        const doc = banks.get(bankId)?.docs.get(documentId);
        return E.right(doc === undefined ? ({ _tag: 'absent', reason: 'notFound' } as const) : ({ _tag: 'present', value: { id: doc.id, bank_id: bankId, original_text: doc.text, tags: doc.tags, document_metadata: doc.metadata } } as const));
      }),
    listTags: (bankId) =>
      op('listTags', bankId, {}, () => {
        const counts = new Map<string, number>();
        for (const fact of banks.get(bankId)?.facts ?? []) for (const tag of fact.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
        const items = [...counts].map(([tag, count]) => ({ tag, count }));
        return E.right({ items, total: items.length });
      }),

    listMentalModels: (bankId) => op('listMentalModels', bankId, {}, () => E.right({ items: [...(banks.get(bankId)?.models.values() ?? [])] }), ['mentalModels']),
    getMentalModel: (bankId, id) =>
      op('getMentalModel', bankId, { id }, () => {
        const model = banks.get(bankId)?.models.get(id);
        return model === undefined ? notFound(`Mental model '${id}'`) : E.right(model);
      }, ['mentalModels']),
    createMentalModel: (bankId, req) =>
      op('createMentalModel', bankId, req, () => {
        const b = bank(bankId);
        const id = req.id ?? nextId('mm-');
        b.models.set(id, { id, bank_id: bankId, name: req.name, source_query: req.source_query, tags: req.tags ?? [], max_tokens: req.max_tokens ?? 2048, content: 'Generating content...' });
        return E.right({ mental_model_id: id, operation_id: nextId('op-') });
      }, ['mentalModels']),
    updateMentalModel: (bankId, id, req) =>
      op('updateMentalModel', bankId, { id, ...req }, () => {
        const b = banks.get(bankId);
        const model = b?.models.get(id);
        if (b === undefined || model === undefined) return notFound(`Mental model '${id}'`);
        // null in a PATCH leaves the field as it was, as on the server.
        const { trigger, name, ...rest } = req;
        const changed = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null)) as Partial<MentalModel>;
        const next: MentalModel = { ...model, ...changed, ...(name === null || name === undefined ? {} : { name }), ...(trigger === null || trigger === undefined ? {} : { trigger: { ...trigger } }) };
        b.models.set(id, next);
        return E.right(next);
      }, ['mentalModels']),
    deleteMentalModel: (bankId, id) =>
      op('deleteMentalModel', bankId, { id }, () => (banks.get(bankId)?.models.delete(id) === true ? E.right(undefined) : notFound(`Mental model '${id}'`)), ['mentalModels']),
    refreshMentalModel: (bankId, id) =>
      op('refreshMentalModel', bankId, { id }, () => {
        const b = banks.get(bankId);
        const model = b?.models.get(id);
        if (b === undefined || model === undefined) return notFound(`Mental model '${id}'`);
        const hits = search(b, model.source_query ?? model.name, undefined, 'any');
        b.models.set(id, { ...model, content: hits.map((hit) => `- ${hit.text}`).join('\n'), last_refreshed_at: now() });
        return E.right({ operation_id: nextId('op-'), status: 'queued' });
      }, ['mentalModels']),
    mentalModelHistory: (bankId, id) => op('mentalModelHistory', bankId, { id }, () => E.right([]), ['mentalModels']),

    knowledgeTree: (bankId) => op('knowledgeTree', bankId, {}, () => {
      const b = banks.get(bankId);
      return E.right({ roots: b === undefined ? [] : nodesOf(b, null) });
    }, ['knowledge']),
    searchKnowledge: (bankId, q) =>
      op('searchKnowledge', bankId, q, () => {
        const needles = words(q.q);
        const results = [...(banks.get(bankId)?.nodes.values() ?? [])]
          .filter((node) => node.kind === 'page' && needles.some((needle) => `${node.name} ${node.description ?? ''}`.toLowerCase().includes(needle)))
          .slice(0, q.limit ?? 10)
          .map((node) => ({ id: node.id, name: node.name, snippet: node.description ?? '', score: 1 }));
        return E.right({ results, total: results.length });
      }, ['knowledge']),
    getKnowledgePage: (bankId, pageId) =>
      op('getKnowledgePage', bankId, { pageId }, () => {
        const node = banks.get(bankId)?.nodes.get(pageId);
        if (node === undefined || node.kind !== 'page') return notFound(`Knowledge page '${pageId}'`);
        return E.right({ id: node.id, name: node.name, type: 'knowledge-page', description: node.description ?? null, tags: node.tags ?? [], body: node.body ?? '' });
      }, ['knowledge']),
    createKnowledgeFolder: (bankId, req) =>
      op('createKnowledgeFolder', bankId, req, () => {
        const b = bank(bankId);
        const node: KnowledgeNode = { id: nextId('kf-'), kind: 'folder', name: req.name, parent_id: req.parent_id ?? null, tags: [], children: [] };
        b.nodes.set(node.id, node);
        return E.right(node);
      }, ['knowledge']),
    createKnowledgePage: (bankId, req) =>
      op('createKnowledgePage', bankId, req, () => {
        const b = bank(bankId);
        const parent = req.parent_id ?? null;
        if ([...b.nodes.values()].some((node) => (node.parent_id ?? null) === parent && node.name.toLowerCase() === req.name.toLowerCase())) {
          return E.left({ _tag: 'invalidRequest', status: 409, detail: `A page named '${req.name}' already exists in this folder` });
        }
        const id = nextId('kp-');
        b.nodes.set(id, { id, kind: 'page', name: req.name, parent_id: parent, description: req.source_query, tags: req.tags ?? [], body: '' });
        return E.right({ page_id: id, mental_model_id: nextId('mm-'), operation_id: nextId('op-') });
      }, ['knowledge']),
    updateKnowledgeNode: (bankId, nodeId, req) =>
      op('updateKnowledgeNode', bankId, { nodeId, ...req }, () => {
        const b = banks.get(bankId);
        const node = b?.nodes.get(nodeId);
        if (b === undefined || node === undefined) return notFound(`Knowledge node '${nodeId}'`);
        if (Object.keys(req).length === 0) return E.left({ _tag: 'invalidRequest', status: 400, detail: 'No fields to update' });
        const next = {
          ...node,
          ...(req.name === undefined ? {} : { name: req.name }),
          ...(req.parent_id === undefined ? {} : { parent_id: req.parent_id }),
          ...(req.source_query === undefined ? {} : { description: req.source_query }),
          ...(req.tags === undefined ? {} : { tags: req.tags }),
        };
        b.nodes.set(nodeId, next);
        return E.right(next);
      }, ['knowledge']),
    deleteKnowledgeNode: (bankId, nodeId) =>
      op('deleteKnowledgeNode', bankId, { nodeId }, () => {
        const b = banks.get(bankId);
        if (b === undefined || !b.nodes.has(nodeId)) return notFound(`Knowledge node '${nodeId}'`);
        const doomed = [nodeId];
        for (let i = 0; i < doomed.length; i += 1) for (const node of b.nodes.values()) if (node.parent_id === doomed[i]) doomed.push(node.id);
        for (const id of doomed) b.nodes.delete(id);
        return E.right(undefined);
      }, ['knowledge']),
    exportKnowledge: (bankId) =>
      op('exportKnowledge', bankId, {}, () =>
        E.right({ files: [...(banks.get(bankId)?.nodes.values() ?? [])].filter((node) => node.kind === 'page').map((node) => ({ path: `${node.id}.md`, content: `# ${node.name}\n\n${node.body ?? ''}\n` })) }),
      ['knowledge']),

    breaker: () => breakerState,
    subscribeBreaker: (listener) => {
      breakerListeners.add(listener);
      return () => {
        breakerListeners.delete(listener);
      };
    },
  };
  return twin;
};
