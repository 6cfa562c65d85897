/** Documents: list, get, patch tags, delete, chunks; single chunk by id (reference 1.10). */
import * as t from 'io-ts';
import { HttpError, notFound } from '../http/errors.js';
import { intParam, listParam, page, stringParam } from '../http/query.js';
import { decodeOr422 } from '../http/validation.js';
import { TagsMatch } from '../recall/tagFilter.js';
import type { DocumentRecord, Mutation } from '../store/model.js';
import type { BankState } from '../store/state.js';
import { touchBank } from './bankOps.js';
import { browseIndexes } from '../features/browseIndexes.js';
import { documentPage } from '../features/browseQueries.js';
import type { RouteModule } from './module.js';
import { extractEntities, mergeEntities } from '../retain/entities.js';

const DOC = '/v1/default/banks/{bank_id}/documents/{document_id:path}';
const UpdateDocumentRequest = t.partial({ tags: t.union([t.array(t.string), t.null]) });

const requireDocument = (bank: BankState | undefined, id: string): DocumentRecord => {
  const document = bank?.documents.get(id);
  if (document === undefined) throw notFound('Document not found');
  return document;
};

const factsOf = (bank: BankState, documentId: string) =>
  (bank.factsByDocument.get(documentId) ?? []).flatMap((id) => {
    const fact = bank.facts.get(id);
    return fact === undefined ? [] : [fact];
  });

const metadataOf = (document: DocumentRecord): unknown => document.retain_params['metadata'] ?? null;

export const documentsModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks/{bank_id}/documents',
      handler: async ({ params, query, server }) => {
        const bank = server.store.bank(params['bank_id'] ?? '');
        const q = stringParam(query, 'q')?.toLowerCase();
        const tags = listParam(query, 'tags');
        // A plain string parameter upstream: an unknown value behaves like `any`.
        const rawMode = stringParam(query, 'tags_match') ?? 'any_strict';
        const mode = TagsMatch.is(rawMode) ? rawMode : 'any';
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        // From the bank's index: only the page's documents are read, not every document's text.
        const index = await browseIndexes(server.store).documents(params['bank_id'] ?? '');
        const { items: shown, total } = documentPage(bank, index, q, tags, mode, limit, offset);
        const items = shown.map((d) => ({
          id: d.id,
          bank_id: params['bank_id'],
          content_hash: d.content_hash,
          created_at: d.created_at,
          updated_at: d.updated_at,
          text_length: d.original_text?.length ?? 0,
          memory_unit_count: bank?.factsByDocument.get(d.id)?.length ?? 0,
          retain_params: d.retain_params,
          document_metadata: metadataOf(d),
          tags: d.tags,
        }));
        return { body: { items, total, limit, offset } };
      },
    },
    {
      method: 'POST',
      pattern: `${DOC}/reprocess`,
      // Reprocessing re-runs extraction: here, the deterministic entity extractor over each of
      // the document's facts (given entities kept) and a re-index. Recorded as an operation.
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const bank = server.store.bank(bankId);
          const document = requireDocument(bank, params['document_id'] ?? '');
          const facts = (bank?.factsByDocument.get(document.id) ?? []).flatMap((id) => {
            const f = bank?.facts.get(id);
            if (f === undefined || f.fact_type === 'observation') return [];
            const entities = mergeEntities(f.entities ?? [], extractEntities(f.text));
            return [{ ...f, ...(entities.length === 0 ? {} : { entities }) }];
          });
          const now = server.nowIso();
          const op = server.operations.build({ bankId, taskType: 'reprocess_document', itemsCount: facts.length, documentId: document.id });
          const done = { ...op, status: 'completed' as const, completed_at: now, result_metadata: { items_count: facts.length } };
          await server.store.commit([{ type: 'facts.put', bank_id: bankId, facts }, { type: 'operation.put', operation: done }]);
          return { body: { success: true, operation_id: op.id, items_count: facts.length } };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${DOC}/chunks`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const bank = server.store.bank(bankId);
        const document = requireDocument(bank, params['document_id'] ?? '');
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        const chunks = (bank?.chunksByDocument.get(document.id) ?? []).flatMap((id) => {
          const c = bank?.chunks.get(id);
          return c === undefined ? [] : [c];
        });
        const items = page(chunks, limit, offset).map((c) => ({
          chunk_id: c.id,
          document_id: c.document_id,
          bank_id: bankId,
          chunk_index: c.chunk_index,
          chunk_text: c.text,
          created_at: document.updated_at,
        }));
        return { body: { items, total: chunks.length, limit, offset } };
      },
    },
    {
      method: 'GET',
      pattern: DOC,
      // DocumentResponse has required nullable fields (original_text, content_hash): nulls are kept.
      keepNulls: true,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const bank = server.store.bank(bankId);
        const document = requireDocument(bank, params['document_id'] ?? '');
        const facts = bank === undefined ? [] : factsOf(bank, document.id);
        const byType = { world: 0, experience: 0, observation: 0 };
        for (const f of facts) byType[f.fact_type] += 1;
        const scopes = document.retain_params['observation_scopes'];
        return {
          body: {
            id: document.id,
            bank_id: bankId,
            original_text: document.original_text,
            content_hash: document.content_hash,
            created_at: document.created_at,
            updated_at: document.updated_at,
            memory_unit_count: facts.length,
            nodes_by_fact_type: byType,
            tags: document.tags,
            document_metadata: metadataOf(document),
            retain_params: document.retain_params,
            ...(scopes === undefined ? {} : { observation_scopes: scopes }),
          },
        };
      },
    },
    {
      method: 'PATCH',
      pattern: DOC,
      handler: ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const request = decodeOr422(UpdateDocumentRequest, body ?? {});
        if (request.tags === undefined || request.tags === null) throw new HttpError(422, 'At least one field (tags) must be provided');
        const tags = [...new Set(request.tags)];
        return server.store.exclusive(bankId, async () => {
          const bank = server.store.bank(bankId);
          const document = requireDocument(bank, params['document_id'] ?? '');
          if (bank === undefined) throw notFound('Document not found');
          const now = server.nowIso();
          const chunks = (bank.chunksByDocument.get(document.id) ?? []).flatMap((id) => {
            const c = bank.chunks.get(id);
            return c === undefined ? [] : [c];
          });
          const facts = factsOf(bank, document.id).map((f) => ({ ...f, tags }));
          const mutations: Mutation[] = [
            { type: 'document.put', bank_id: bankId, document: { ...document, tags, updated_at: now }, chunks, facts },
            touchBank(bank.bank, now, false),
          ];
          await server.store.commit(mutations);
          return { body: { success: true } };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: DOC,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const bank = server.store.bank(bankId);
          const document = requireDocument(bank, params['document_id'] ?? '');
          const count = bank?.factsByDocument.get(document.id)?.length ?? 0;
          await server.store.commit([{ type: 'document.delete', bank_id: bankId, document_id: document.id }]);
          return {
            body: { success: true, message: `Document '${document.id}' deleted`, document_id: document.id, memory_units_deleted: count },
          };
        });
      },
    },
    {
      method: 'GET',
      pattern: '/v1/default/chunks/{chunk_id}',
      handler: ({ params, server }) => {
        const chunkId = params['chunk_id'] ?? '';
        for (const [bankId, bank] of server.store.state.banks) {
          const chunk = bank.chunks.get(chunkId);
          if (chunk === undefined) continue;
          const document = bank.documents.get(chunk.document_id);
          return {
            body: {
              chunk_id: chunk.id,
              document_id: chunk.document_id,
              bank_id: bankId,
              chunk_index: chunk.chunk_index,
              chunk_text: chunk.text,
              created_at: document?.updated_at ?? bank.bank.created_at,
            },
          };
        }
        throw notFound(`Chunk '${chunkId}' not found`);
      },
    },
  ],
};
