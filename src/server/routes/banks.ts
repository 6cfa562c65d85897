/** Bank list, create/update (PUT/PATCH), delete, clear memories (reference 1.4). */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import { JsonValue } from '../../codecs/codecs.js';
import type { ServerContext } from '../context.js';
import { badRequest, notFound } from '../http/errors.js';
import { intParam, page, stringParam } from '../http/query.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { checkConfigUpdates, CONFIG_KIND, CONFIG_OVERRIDES_ID, profileOverlay } from '../features/bankConfig.js';
import type { ConfigOverrides } from '../features/bankConfig.js';
import type { BankRecord, Mutation } from '../store/model.js';
import type { BankState } from '../store/state.js';
import { newBank } from './bankOps.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';
const Trait = t.number;

const CreateBankRequest = t.partial({
  name: nullable(t.string),
  disposition: nullable(t.type({ skepticism: Trait, literalism: Trait, empathy: Trait })),
  disposition_skepticism: nullable(Trait),
  disposition_literalism: nullable(Trait),
  disposition_empathy: nullable(Trait),
  mission: nullable(t.string),
  background: nullable(t.string),
  reflect_mission: nullable(t.string),
  retain_mission: nullable(t.string),
  retain_extraction_mode: nullable(t.string),
  retain_custom_instructions: nullable(t.string),
  retain_chunk_size: nullable(t.number),
  retain_structured_chunk_size: nullable(t.number),
  enable_observations: nullable(t.boolean),
  observations_mission: nullable(t.string),
  enable_temporal_retrieval: nullable(t.boolean),
  enable_graph_retrieval: nullable(t.boolean),
  enable_reranking: nullable(t.boolean),
});
type CreateBankRequest = t.TypeOf<typeof CreateBankRequest>;

const Overrides = t.record(t.string, JsonValue);

const overridesOf = (bank: BankState | undefined): ConfigOverrides => {
  const value = bank?.records.get(CONFIG_KIND)?.get(CONFIG_OVERRIDES_ID);
  return Overrides.is(value) ? value : {};
};

/** Everything but `name` becomes a config override (reflect_mission > mission > background; single traits > the dict). */
const configUpdatesOf = (body: CreateBankRequest): Record<string, unknown> => {
  const updates: Record<string, unknown> = {};
  const mission = body.reflect_mission ?? body.mission ?? body.background;
  if (mission !== undefined && mission !== null) updates['reflect_mission'] = mission;
  const traits = ['skepticism', 'literalism', 'empathy'] as const;
  for (const trait of traits) {
    const single = body[`disposition_${trait}`];
    const fromDict = body.disposition?.[trait];
    const value = single ?? fromDict;
    if (value !== undefined && value !== null) updates[`disposition_${trait}`] = value;
  }
  const passThrough = [
    'retain_mission',
    'retain_extraction_mode',
    'retain_custom_instructions',
    'retain_chunk_size',
    'retain_structured_chunk_size',
    'enable_observations',
    'observations_mission',
    'enable_temporal_retrieval',
    'enable_graph_retrieval',
    'enable_reranking',
  ] as const;
  for (const key of passThrough) {
    const value = body[key];
    if (value !== undefined && value !== null) updates[key] = value;
  }
  return updates;
};

const profileOf = (bank: BankState): Record<string, unknown> => {
  const overlay = profileOverlay(bank.bank, overridesOf(bank));
  return { bank_id: bank.bank.bank_id, name: bank.bank.name, disposition: overlay.disposition, mission: overlay.mission, background: overlay.mission };
};

const listItem = (bank: BankState): Record<string, unknown> => {
  const overlay = profileOverlay(bank.bank, overridesOf(bank));
  return {
    bank_id: bank.bank.bank_id,
    name: bank.bank.name,
    disposition: overlay.disposition,
    mission: overlay.mission,
    created_at: bank.bank.created_at,
    updated_at: bank.bank.updated_at,
    fact_count: bank.facts.size,
    last_document_at: bank.bank.last_document_at ?? null,
    last_write_at: bank.bank.last_write_at ?? null,
  };
};

/** PUT creates or updates, PATCH only updates; both validate before writing anything. */
const upsertBank = async (server: ServerContext, bankId: string, body: unknown, create: boolean): Promise<{ body: unknown; headers: Record<string, string> }> => {
  const request = decodeOr422(CreateBankRequest, body ?? {});
  const headers = ignoredHeader(unknownFields(CreateBankRequest, body));
  const checked = checkConfigUpdates(configUpdatesOf(request));
  if ('problem' in checked) throw badRequest(checked.problem);
  return server.store.exclusive(bankId, async () => {
    const existing = server.store.bank(bankId);
    if (existing === undefined && !create) throw notFound(`Bank '${bankId}' not found`);
    const now = server.nowIso();
    const base: BankRecord = existing?.bank ?? newBank(bankId, now);
    const bank: BankRecord = { ...base, updated_at: now, ...(request.name === undefined || request.name === null ? {} : { name: request.name }) };
    const mutations: Mutation[] = [{ type: 'bank.put', bank }];
    if (Object.keys(checked.ok).length > 0) {
      mutations.push({ type: 'record.put', bank_id: bankId, kind: CONFIG_KIND, id: CONFIG_OVERRIDES_ID, value: { ...overridesOf(existing), ...checked.ok } });
    }
    await server.store.commit(mutations);
    const state = server.store.bank(bankId);
    if (state === undefined) throw notFound(`Bank '${bankId}' not found`);
    return { body: profileOf(state), headers };
  });
};

const order = (a: BankState, b: BankState): number =>
  (b.bank.last_write_at ?? b.bank.created_at).localeCompare(a.bank.last_write_at ?? a.bank.created_at) || a.bank.bank_id.localeCompare(b.bank.bank_id);

export const banksModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: '/v1/default/banks',
      handler: ({ query, server }) => {
        // `q` only narrows (a 0.9.1 client never sends it); the shape follows the version.
        const q = stringParam(query, 'q')?.toLowerCase();
        const all = [...server.store.state.banks.values()]
          .filter((b) => q === undefined || b.bank.bank_id.toLowerCase().includes(q) || b.bank.name.toLowerCase().includes(q))
          .sort(order);
        // 0.9.1 has no paging here: every bank, `{"banks": [...]}` and nothing else.
        if (server.mimic !== '0.10') return { body: { banks: all.map(listItem) } };
        const limit = intParam(query, 'limit', 100);
        const offset = intParam(query, 'offset', 0);
        return { body: { banks: page(all, limit, offset).map(listItem), total: all.length, limit, offset } };
      },
    },
    { method: 'PUT', pattern: BANK, handler: ({ params, body, server }) => upsertBank(server, params['bank_id'] ?? '', body, true) },
    { method: 'PATCH', pattern: BANK, handler: ({ params, body, server }) => upsertBank(server, params['bank_id'] ?? '', body, false) },
    {
      method: 'DELETE',
      pattern: BANK,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const bank = server.store.bank(bankId);
          if (bank === undefined) return { body: { success: true, message: `Bank '${bankId}' not found; nothing deleted`, deleted_count: 0 } };
          const entities = new Set<string>();
          for (const f of bank.facts.values()) for (const e of f.entities ?? []) entities.add(e.text.toLowerCase());
          const deleted = bank.facts.size + entities.size + bank.documents.size;
          await server.store.commit([{ type: 'bank.delete', bank_id: bankId }]);
          return { body: { success: true, message: `Bank '${bankId}' and all its data deleted`, deleted_count: deleted } };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: `${BANK}/memories`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const type = stringParam(query, 'type');
        return server.store.exclusive(bankId, async () => {
          const bank = server.store.bank(bankId);
          if (bank === undefined) return { body: { success: true, message: 'No memories to delete', deleted_count: 0 } };
          const mutations: Mutation[] = [];
          let count: number;
          if (type === undefined) {
            for (const id of bank.documents.keys()) mutations.push({ type: 'document.delete', bank_id: bankId, document_id: id });
            count = bank.facts.size;
            const loose = [...bank.facts.keys()];
            mutations.push({ type: 'facts.delete', bank_id: bankId, ids: loose });
          } else {
            const ids = [...bank.facts.values()].filter((f) => f.fact_type === type).map((f) => f.id);
            count = ids.length;
            mutations.push({ type: 'facts.delete', bank_id: bankId, ids });
          }
          await server.store.commit(mutations);
          return { body: { success: true, message: `Deleted ${count} memories`, deleted_count: count } };
        });
      },
    },
  ],
};
