/**
 * Webhooks: registrations are records of the bank (kind `webhook`, durable); deliveries are
 * POSTed (or GET) as upstream shapes them, signed `sha256=<hmac>` when the hook has a secret,
 * and remembered in memory for `GET .../deliveries`. The embedded server only delivers to
 * loopback URLs, and follows no redirect: it runs beside the agent and must not become a way to
 * send data off the machine.
 */
import { createHmac, randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import type { ServerContext } from '../context.js';
import { readRecords } from './records.js';

export const WEBHOOK_KIND = 'webhook';

/** Characters of a receiver's answer a delivery keeps. */
const RESPONSE_KEPT_CHARS = 2000;
/** Bytes of a receiver's answer read at most: a receiver answering 150 MB must not cost the server its size (or more, as text). */
const RESPONSE_READ_BYTES = 16 * 1024;

/** The start of a response body, read up to `limit` bytes; the rest is never read (the stream is cancelled). */
const readHead = async (res: Response, limit: number): Promise<string> => {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
};

export const WebhookRecord = t.intersection([
  t.type({ id: t.string, url: t.string, event_types: t.array(t.string), enabled: t.boolean, created_at: t.string, updated_at: t.string }),
  t.partial({
    secret: t.string,
    http_config: t.partial({ method: t.string, timeout_seconds: t.number, headers: t.record(t.string, t.string), params: t.record(t.string, t.string) }),
  }),
]);
export type WebhookRecord = t.TypeOf<typeof WebhookRecord>;

export interface Delivery {
  readonly id: string;
  readonly webhook_id: string;
  readonly url: string;
  readonly event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  last_response_status: number | null;
  last_response_body: string | null;
  last_attempt_at: string | null;
  readonly created_at: string;
  updated_at: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Why a URL cannot be a webhook target here, or undefined when it can. */
export const urlProblem = (url: string): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `Invalid webhook url '${url}'`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `Invalid webhook url '${url}': expected http or https`;
  if (!LOOPBACK.has(parsed.hostname)) return `The embedded server delivers webhooks to loopback URLs only (127.0.0.1, localhost, ::1), not '${parsed.hostname}'`;
  return undefined;
};

export interface RetainEvent {
  readonly bankId: string;
  readonly operationId: string;
  /** Made only when a hook wants the event: a bank without hooks pays nothing per retained item. */
  readonly items: () => readonly { readonly document_id: string | null; readonly tags: readonly string[] | null; readonly memory_unit_count: number }[];
}

export class WebhookDispatcher {
  private server: ServerContext | undefined;
  private readonly deliveries = new Map<string, Delivery[]>();
  private readonly inFlight = new Set<Promise<void>>();

  attach(server: ServerContext): void {
    this.server = server;
  }

  list(webhookId: string): Delivery[] {
    return [...(this.deliveries.get(webhookId) ?? [])].reverse();
  }

  /** One delivery per item, as upstream queues them, to each enabled hook that wants the event. */
  retainCompleted(event: RetainEvent): void {
    const server = this.server;
    if (server === undefined || server.store.bank(event.bankId) === undefined) return;
    const hooks = readRecords(server, event.bankId, WEBHOOK_KIND, WebhookRecord).filter((h) => h.enabled && h.event_types.includes('retain.completed'));
    if (hooks.length === 0) return;
    const items = event.items();
    for (const hook of hooks) {
      for (const item of items) {
        const payload = {
          event: 'retain.completed',
          bank_id: event.bankId,
          operation_id: event.operationId,
          status: 'completed',
          timestamp: server.nowIso(),
          data: item,
        };
        this.deliver(server, hook, payload);
      }
    }
  }

  private deliver(server: ServerContext, hook: WebhookRecord, payload: Record<string, unknown>): void {
    const now = server.nowIso();
    const delivery: Delivery = {
      id: randomUUID(),
      webhook_id: hook.id,
      url: hook.url,
      event_type: String(payload['event']),
      status: 'pending',
      attempts: 0,
      last_error: null,
      last_response_status: null,
      last_response_body: null,
      last_attempt_at: null,
      created_at: now,
      updated_at: now,
    };
    const list = this.deliveries.get(hook.id) ?? [];
    list.push(delivery);
    if (list.length > 1000) list.splice(0, list.length - 1000);
    this.deliveries.set(hook.id, list);
    const problem = urlProblem(hook.url);
    if (problem !== undefined) {
      delivery.status = 'failed';
      delivery.last_error = problem;
      return;
    }
    const body = JSON.stringify(payload);
    const method = (hook.http_config?.method ?? 'POST').toUpperCase() === 'GET' ? 'GET' : 'POST';
    const url = new URL(hook.url);
    for (const [k, v] of Object.entries(hook.http_config?.params ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...(hook.http_config?.headers ?? {}), 'Content-Type': 'application/json' };
    if (hook.secret !== undefined) headers['X-Hindsight-Signature'] = `sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`;
    const run = (async () => {
      delivery.attempts += 1;
      delivery.last_attempt_at = server.nowIso();
      try {
        // Never followed: a redirect's target was never checked (`urlProblem`), so a loopback
        // receiver answering 307 sent the payload, its signature and the hook's headers anywhere.
        const res = await fetch(url, { method, headers, redirect: 'manual', ...(method === 'POST' ? { body } : {}), signal: AbortSignal.timeout((hook.http_config?.timeout_seconds ?? 30) * 1000) });
        delivery.last_response_status = res.status;
        delivery.last_response_body = (await readHead(res, RESPONSE_READ_BYTES)).slice(0, RESPONSE_KEPT_CHARS);
        delivery.status = res.ok ? 'delivered' : 'failed';
        if (!res.ok) delivery.last_error = `HTTP ${res.status}`;
      } catch (error) {
        delivery.status = 'failed';
        delivery.last_error = error instanceof Error ? error.message : String(error);
      }
      delivery.updated_at = server.nowIso();
    })();
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** Waits for deliveries under way (the server calls this on close; tests on idle). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
