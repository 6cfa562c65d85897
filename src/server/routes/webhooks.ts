/** `{b}/webhooks` CRUD and deliveries (reference 1.13); delivery itself is in features/webhooks.ts. */
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import type { ServerContext } from '../context.js';
import { badRequest, notFound } from '../http/errors.js';
import { intParam } from '../http/query.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import { deleteRecord, putRecord, readRecord, readRecords } from '../features/records.js';
import { urlProblem, WEBHOOK_KIND, WebhookRecord } from '../features/webhooks.js';
import { ensureBankMutations } from './bankOps.js';
import type { RouteModule } from './module.js';

const BASE = '/v1/default/banks/{bank_id}/webhooks';
const EVENTS = ['retain.completed', 'consolidation.completed', 'memory_defense.triggered'];

const HttpConfig = t.partial({ method: t.string, timeout_seconds: t.number, headers: t.record(t.string, t.string), params: t.record(t.string, t.string) });
const CreateWebhook = t.intersection([
  t.type({ url: t.string }),
  t.partial({ secret: nullable(t.string), event_types: t.array(t.string), enabled: t.boolean, http_config: HttpConfig }),
]);
const UpdateWebhook = t.partial({
  url: nullable(t.string),
  secret: nullable(t.string),
  event_types: nullable(t.array(t.string)),
  enabled: nullable(t.boolean),
  http_config: nullable(HttpConfig),
});

const check = (url: string | undefined, events: readonly string[] | undefined): void => {
  const problem = url === undefined ? undefined : urlProblem(url);
  if (problem !== undefined) throw badRequest(problem);
  const unknown = (events ?? []).filter((e) => !EVENTS.includes(e));
  if (unknown.length > 0) throw badRequest(`Unsupported event types: ${unknown.join(', ')}. Supported: ${EVENTS.join(', ')}`);
};

const responseOf = (bankId: string, w: WebhookRecord): Record<string, unknown> => ({
  id: w.id,
  bank_id: bankId,
  url: w.url,
  // Upstream never echoes the secret itself.
  secret: w.secret === undefined ? null : '********',
  event_types: w.event_types,
  enabled: w.enabled,
  http_config: { method: 'POST', timeout_seconds: 30, headers: {}, params: {}, ...(w.http_config ?? {}) },
  created_at: w.created_at,
  updated_at: w.updated_at,
});

const requireHook = (server: ServerContext, bankId: string, id: string): WebhookRecord => {
  const hook = readRecord(server, bankId, WEBHOOK_KIND, id, WebhookRecord);
  if (hook === undefined) throw notFound(`Webhook '${id}' not found`);
  return hook;
};

export const webhooksModule: RouteModule = {
  routes: [
    {
      method: 'POST',
      pattern: BASE,
      handler: async ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const req = decodeOr422(CreateWebhook, body);
        check(req.url, req.event_types);
        const now = server.nowIso();
        const hook: WebhookRecord = {
          id: randomUUID(),
          url: req.url,
          event_types: req.event_types ?? ['consolidation.completed'],
          enabled: req.enabled ?? true,
          created_at: now,
          updated_at: now,
          ...(req.secret === undefined || req.secret === null ? {} : { secret: req.secret }),
          ...(req.http_config === undefined ? {} : { http_config: req.http_config }),
        };
        await server.store.commit([...ensureBankMutations(server, bankId), putRecord(bankId, WEBHOOK_KIND, hook.id, hook)]);
        return { status: 201, body: responseOf(bankId, hook), headers: ignoredHeader(unknownFields(CreateWebhook, body)) };
      },
    },
    {
      method: 'GET',
      pattern: BASE,
      handler: ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        return { body: { items: readRecords(server, bankId, WEBHOOK_KIND, WebhookRecord).map((w) => responseOf(bankId, w)) } };
      },
    },
    {
      method: 'PATCH',
      pattern: `${BASE}/{webhook_id}`,
      handler: async ({ params, body, server }) => {
        const bankId = params['bank_id'] ?? '';
        const req = decodeOr422(UpdateWebhook, body ?? {});
        const old = requireHook(server, bankId, params['webhook_id'] ?? '');
        check(req.url ?? undefined, req.event_types ?? undefined);
        const { secret: _secret, ...rest } = old;
        const secret = req.secret === undefined ? old.secret : (req.secret ?? undefined);
        const hook: WebhookRecord = {
          ...rest,
          url: req.url ?? old.url,
          event_types: req.event_types ?? old.event_types,
          enabled: req.enabled ?? old.enabled,
          updated_at: server.nowIso(),
          ...(secret === undefined ? {} : { secret }),
          ...(req.http_config === undefined || req.http_config === null ? {} : { http_config: req.http_config }),
        };
        await server.store.commit([putRecord(bankId, WEBHOOK_KIND, hook.id, hook)]);
        return { body: responseOf(bankId, hook) };
      },
    },
    {
      method: 'DELETE',
      pattern: `${BASE}/{webhook_id}`,
      handler: async ({ params, server }) => {
        const bankId = params['bank_id'] ?? '';
        const hook = requireHook(server, bankId, params['webhook_id'] ?? '');
        await server.store.commit([deleteRecord(bankId, WEBHOOK_KIND, hook.id)]);
        return { body: { success: true, message: `Webhook '${hook.id}' deleted`, deleted_count: 1 } };
      },
    },
    {
      method: 'GET',
      pattern: `${BASE}/{webhook_id}/deliveries`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const hook = requireHook(server, bankId, params['webhook_id'] ?? '');
        const limit = intParam(query, 'limit', 50, 1, 1000);
        const cursor = query.get('cursor');
        const all = server.webhooks.list(hook.id);
        const start = cursor === null ? 0 : Math.max(0, all.findIndex((d) => d.id === cursor) + 1);
        const items = all.slice(start, start + limit);
        const last = items[items.length - 1];
        return { body: { items, next_cursor: start + limit < all.length && last !== undefined ? last.id : null } };
      },
    },
  ],
  close: (server) => server.webhooks.settle(),
};
