/**
 * Monitoring routes (reference 1.12): `/metrics` in Prometheus text, the memories timeseries,
 * and the audit and LLM request logs. This server calls no LLM, so its LLM request log is
 * honestly empty; the audit log lists the bank's mutations of record (retains, deletes, edits)
 * read back from what the store holds.
 */
import type { ServerContext } from '../context.js';
import { intParam, stringParam } from '../http/query.js';
import type { FactRecord } from '../store/model.js';
import type { RouteModule } from './module.js';
import { observationsIfStarted } from '../features/observationsFor.js';

const BANK = '/v1/default/banks/{bank_id}';

/** Upstream's periods: a window and the bucket width it is cut into. */
const PERIODS: Readonly<Record<string, { days: number; trunc: 'hour' | 'day' }>> = {
  '1d': { days: 1, trunc: 'hour' },
  '7d': { days: 7, trunc: 'day' },
  '30d': { days: 30, trunc: 'day' },
  '90d': { days: 90, trunc: 'day' },
};

const periodOf = (raw: string | undefined): { name: string; days: number; trunc: 'hour' | 'day' } => {
  const name = raw !== undefined && Object.hasOwn(PERIODS, raw) ? raw : '7d';
  const p = PERIODS[name] ?? { days: 7, trunc: 'day' as const };
  return { name, ...p };
};

const truncate = (ms: number, trunc: 'hour' | 'day'): number => {
  const unit = trunc === 'hour' ? 3_600_000 : 86_400_000;
  return Math.floor(ms / unit) * unit;
};

/** One time bucket of the audit stats: counts per action and in all. */
interface AuditBucket {
  readonly time: string;
  readonly actions: Record<string, number>;
  total: number;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

/** Every bucket start of the window, oldest first. */
const bucketStarts = (server: ServerContext, days: number, trunc: 'hour' | 'day'): number[] => {
  const unit = trunc === 'hour' ? 3_600_000 : 86_400_000;
  const end = truncate(server.clock.now(), trunc);
  const start = truncate(server.clock.now() - days * 86_400_000, trunc) + unit;
  const out: number[] = [];
  for (let at = start; at <= end; at += unit) out.push(at);
  return out;
};

const timeOf = (fact: FactRecord, field: string): string | undefined =>
  field === 'mentioned_at' ? fact.mentioned_at : field === 'occurred_start' ? fact.occurred_start : fact.created_at;

const metricsText = (server: ServerContext): string => {
  const lines = [
    '# HELP hindsight_banks Memory banks held by the embedded server.',
    '# TYPE hindsight_banks gauge',
    `hindsight_banks ${server.store.state.banks.size}`,
    '# HELP hindsight_memory_units Memory units per bank and fact type.',
    '# TYPE hindsight_memory_units gauge',
  ];
  const documents: string[] = [];
  for (const [bankId, bank] of server.store.state.banks) {
    const counts = { world: 0, experience: 0, observation: 0 };
    for (const f of bank.facts.values()) counts[f.fact_type] += 1;
    const label = JSON.stringify(bankId);
    for (const [type, n] of Object.entries(counts)) lines.push(`hindsight_memory_units{bank_id=${label},fact_type="${type}"} ${n}`);
    documents.push(`hindsight_documents{bank_id=${label}} ${bank.documents.size}`);
  }
  lines.push('# HELP hindsight_documents Documents per bank.', '# TYPE hindsight_documents gauge', ...documents);
  // This server's own: observation passes begun since it started (a restart whose banks' passes
  // are still current runs none).
  const consolidator = observationsIfStarted(server);
  lines.push('# HELP agent_memory_observation_passes_total Observation passes begun per bank since the server started.', '# TYPE agent_memory_observation_passes_total counter');
  for (const bankId of server.store.state.banks.keys()) lines.push(`agent_memory_observation_passes_total{bank_id=${JSON.stringify(bankId)}} ${consolidator?.passCount(bankId) ?? 0}`);
  return `${lines.join('\n')}\n`;
};

export const monitoringModule: RouteModule = {
  routes: [
    { method: 'GET', pattern: '/metrics', handler: ({ server }) => ({ body: null, raw: { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: metricsText(server) } }) },
    {
      method: 'GET',
      pattern: `${BANK}/stats/memories-timeseries`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const period = periodOf(stringParam(query, 'period'));
        const raw = stringParam(query, 'time_field');
        const field = raw === 'mentioned_at' || raw === 'occurred_start' ? raw : 'created_at';
        const starts = bucketStarts(server, period.days, period.trunc);
        const buckets = new Map(starts.map((at) => [at, { time: iso(at), world: 0, experience: 0, observation: 0 }]));
        for (const fact of server.store.bank(bankId)?.facts.values() ?? []) {
          const at = timeOf(fact, field);
          if (at === undefined) continue;
          const bucket = buckets.get(truncate(Date.parse(at), period.trunc));
          if (bucket !== undefined) bucket[fact.fact_type] += 1;
        }
        return { body: { bank_id: bankId, period: period.name, trunc: period.trunc, time_field: field, buckets: [...buckets.values()] } };
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/audit-logs`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const action = stringParam(query, 'action');
        const transport = stringParam(query, 'transport');
        const from = stringParam(query, 'start_date');
        const to = stringParam(query, 'end_date');
        const limit = intParam(query, 'limit', 50, 1, 500);
        const offset = intParam(query, 'offset', 0);
        const all = server.audit
          .entries(bankId)
          .filter((e) => (action === undefined || e.action === action) && (transport === undefined || e.transport === transport))
          .filter((e) => (from === undefined || e.started_at >= from) && (to === undefined || e.started_at <= to));
        return { body: { bank_id: bankId, total: all.length, limit, offset, items: all.slice(offset, offset + limit) } };
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/audit-logs/stats`,
      handler: ({ params, query, server }) => {
        const bankId = params['bank_id'] ?? '';
        const action = stringParam(query, 'action');
        const period = periodOf(stringParam(query, 'period'));
        const starts = bucketStarts(server, period.days, period.trunc);
        const buckets = new Map(starts.map((at): [number, AuditBucket] => [at, { time: iso(at), actions: {}, total: 0 }]));
        for (const e of server.audit.entries(bankId)) {
          if (action !== undefined && e.action !== action) continue;
          const bucket = buckets.get(truncate(Date.parse(e.started_at), period.trunc));
          if (bucket === undefined) continue;
          bucket.actions[e.action] = (bucket.actions[e.action] ?? 0) + 1;
          bucket.total += 1;
        }
        return { body: { bank_id: bankId, period: period.name, trunc: period.trunc, start: iso(starts[0] ?? server.clock.now()), buckets: [...buckets.values()].filter((b) => b.total > 0) } };
      },
    },
    {
      method: 'GET',
      pattern: `${BANK}/llm-requests`,
      // No LLM is ever called here, so there is never a request to list.
      handler: ({ params, query }) => ({
        body: { bank_id: params['bank_id'] ?? '', total: 0, limit: intParam(query, 'limit', 50, 1, 1000), offset: intParam(query, 'offset', 0), items: [] },
      }),
    },
    {
      method: 'GET',
      pattern: `${BANK}/llm-requests/stats`,
      handler: ({ params, query, server }) => {
        const period = periodOf(stringParam(query, 'period'));
        const starts = bucketStarts(server, period.days, period.trunc);
        return { body: { bank_id: params['bank_id'] ?? '', period: period.name, trunc: period.trunc, start: iso(starts[0] ?? server.clock.now()), buckets: [] } };
      },
    },
  ],
};
