/**
 * Bank profile (deprecated upstream; 404 for a missing bank, 410 Gone when mimicking 0.10),
 * bank config get/patch/reset, and bank stats (reference 1.4).
 */
import * as t from 'io-ts';
import type { ServerContext } from '../context.js';
import { badRequest, HttpError, notFound } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { checkConfigUpdates, CONFIG_KIND, CONFIG_OVERRIDES_ID, profileOverlay, resolveConfig, withoutNulls } from '../features/bankConfig.js';
import type { ConfigOverrides } from '../features/bankConfig.js';
import { boolParam } from '../features/listQuery.js';
import { observationsFor } from '../features/observationsFor.js';
import { deleteRecord, putRecord, readRecord } from '../features/records.js';
import { JsonValue } from '../../codecs/codecs.js';
import type { BankRecord } from '../store/model.js';
import { ensureBankMutations, touchBank } from './bankOps.js';
import type { RouteModule } from './module.js';

const BANK = '/v1/default/banks/{bank_id}';

const Overrides = t.record(t.string, JsonValue);
const Trait = t.refinement(t.Int, (n) => n >= 1 && n <= 5, 'integer from 1 to 5');
const UpdateDispositionBody = t.type({ disposition: t.type({ skepticism: Trait, literalism: Trait, empathy: Trait }) });
const AddBackgroundBody = t.intersection([t.type({ content: t.string }), t.partial({ update_disposition: t.boolean })]);
const ConfigUpdateBody = t.type({ updates: t.record(t.string, t.unknown) });

const bankIdOf = (params: Readonly<Record<string, string>>): string => params['bank_id'] ?? '';

const overridesOf = (server: ServerContext, bankId: string): ConfigOverrides =>
  readRecord(server, bankId, CONFIG_KIND, CONFIG_OVERRIDES_ID, Overrides) ?? {};

const configBody = (bankId: string, overrides: ConfigOverrides): Record<string, unknown> => ({
  bank_id: bankId,
  config: withoutNulls(resolveConfig(overrides)),
  overrides: withoutNulls(overrides),
});

/** 0.10.0 retired the profile routes; the detail names the replacement call. */
const retired = (server: ServerContext, replacement: string): void => {
  if (server.mimic === '0.10') throw new HttpError(410, `This endpoint was removed in Hindsight 0.10. Use ${replacement} instead.`);
};

const requireBank = (server: ServerContext, bankId: string): BankRecord => {
  const bank = server.store.bank(bankId)?.bank;
  if (bank === undefined) throw notFound(`Bank '${bankId}' not found`);
  return bank;
};

const profileBody = (server: ServerContext, bank: BankRecord): Record<string, unknown> => {
  const overlay = profileOverlay(bank, overridesOf(server, bank.bank_id));
  return { bank_id: bank.bank_id, name: bank.name, disposition: overlay.disposition, mission: overlay.mission, background: overlay.mission };
};

const statsBody = (server: ServerContext, bankId: string): Record<string, unknown> => {
  const bank = server.store.bank(bankId);
  const byType: Record<string, number> = { world: 0, experience: 0, observation: 0 };
  const byStatus: Record<string, number> = {};
  let facts = 0;
  let documents = 0;
  if (bank !== undefined) {
    facts = bank.facts.size;
    documents = bank.documents.size;
    // By the facts' heads: reading every stored fact to count types took 0.34 s at 100k memories.
    for (const id of bank.facts.keys()) {
      const type = bank.facts.head(id)?.fact_type;
      if (type !== undefined) byType[type] = (byType[type] ?? 0) + 1;
    }
    for (const op of bank.operations.values()) byStatus[op.status] = (byStatus[op.status] ?? 0) + 1;
  }
  const body: Record<string, unknown> = {
    bank_id: bankId,
    total_nodes: facts,
    total_links: 0,
    total_documents: documents,
    nodes_by_fact_type: byType,
    links_by_link_type: {},
    links_by_fact_type: {},
    links_breakdown: {},
    pending_operations: (byStatus['pending'] ?? 0) + (byStatus['processing'] ?? 0),
    failed_operations: byStatus['failed'] ?? 0,
    operations_by_status: byStatus,
    pending_consolidation: bank === undefined ? 0 : observationsFor(server).pendingCount(bankId),
    failed_consolidation: 0,
    total_observations: byType['observation'] ?? 0,
  };
  const lastWrite = bank?.bank.last_write_at;
  if (lastWrite !== undefined) body['last_memory_write_at'] = lastWrite;
  return body;
};

export const bankProfileModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: `${BANK}/profile`,
      handler: ({ params, server }) => {
        retired(server, 'GET /v1/default/banks/{bank_id}/config (disposition, reflect_mission) and GET /v1/default/banks (name)');
        return { body: profileBody(server, requireBank(server, bankIdOf(params))) };
      },
    },
    {
      method: 'PUT',
      pattern: `${BANK}/profile`,
      handler: async ({ params, body, server }) => {
        retired(server, 'PATCH /v1/default/banks/{bank_id}/config with disposition_* updates');
        const bankId = bankIdOf(params);
        const req = decodeOr422(UpdateDispositionBody, body);
        return server.store.exclusive(bankId, async () => {
          const overrides: ConfigOverrides = {
            ...overridesOf(server, bankId),
            disposition_skepticism: req.disposition.skepticism,
            disposition_literalism: req.disposition.literalism,
            disposition_empathy: req.disposition.empathy,
          };
          const created = ensureBankMutations(server, bankId);
          await server.store.commit([...created, putRecord(bankId, CONFIG_KIND, CONFIG_OVERRIDES_ID, overrides)]);
          return { body: profileBody(server, requireBank(server, bankId)), headers: ignoredHeader(unknownFields(UpdateDispositionBody, body)) };
        });
      },
    },
    {
      method: 'POST',
      pattern: `${BANK}/background`,
      handler: async ({ params, body, server }) => {
        retired(server, 'PATCH /v1/default/banks/{bank_id}/config with reflect_mission');
        const bankId = bankIdOf(params);
        const req = decodeOr422(AddBackgroundBody, body);
        return server.store.exclusive(bankId, async () => {
          const created = ensureBankMutations(server, bankId);
          const current = server.store.bank(bankId)?.bank.mission ?? '';
          // Upstream merges with an LLM; without one the new text is appended as a paragraph.
          const mission = current.trim().length === 0 ? req.content.trim() : `${current.trim()}\n\n${req.content.trim()}`;
          const bank = server.store.bank(bankId)?.bank;
          const now = server.nowIso();
          const mutations = bank === undefined ? created.map((m) => (m.type === 'bank.put' ? { ...m, bank: { ...m.bank, mission } } : m)) : [touchBank({ ...bank, mission }, now, false)];
          await server.store.commit(mutations);
          return { body: { mission, background: mission } };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/config`,
      handler: ({ params, server }) => {
        const bankId = bankIdOf(params);
        return { body: configBody(bankId, overridesOf(server, bankId)) };
      },
    },
    {
      method: 'PATCH',
      pattern: `${BANK}/config`,
      handler: async ({ params, body, server }) => {
        const bankId = bankIdOf(params);
        const req = decodeOr422(ConfigUpdateBody, body);
        const checked = checkConfigUpdates(req.updates);
        if ('problem' in checked) throw badRequest(checked.problem);
        return server.store.exclusive(bankId, async () => {
          const overrides = { ...overridesOf(server, bankId), ...checked.ok };
          await server.store.commit([...ensureBankMutations(server, bankId), putRecord(bankId, CONFIG_KIND, CONFIG_OVERRIDES_ID, overrides)]);
          return { body: configBody(bankId, overrides), headers: ignoredHeader(unknownFields(ConfigUpdateBody, body)) };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: `${BANK}/config`,
      handler: async ({ params, server }) => {
        const bankId = bankIdOf(params);
        return server.store.exclusive(bankId, async () => {
          if (server.store.bank(bankId)?.records.get(CONFIG_KIND)?.has(CONFIG_OVERRIDES_ID) === true) {
            await server.store.commit([deleteRecord(bankId, CONFIG_KIND, CONFIG_OVERRIDES_ID)]);
          }
          return { body: configBody(bankId, {}) };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/stats`,
      handler: async ({ params, query, server }) => {
        const bankId = bankIdOf(params);
        boolParam(query, 'refresh', false);
        // Stats count observations, so they are brought up to date first (there is no cache to bypass).
        if (server.store.bank(bankId) !== undefined) await observationsFor(server).ensureFresh(bankId);
        return { body: statsBody(server, bankId) };
      },
    },
  ],
};
