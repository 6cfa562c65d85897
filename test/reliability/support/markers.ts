/** Counting markers (`MK<n>`, or `pattern` with the number in group 1) in a bank's documents on the embedded server: each should be there once. */
import { call, type TestServer } from '../../helpers/embeddedServer.js';

export const markerCounts = async (
  server: TestServer,
  bank: string,
  o: { readonly apiKey?: string; readonly pattern?: RegExp } = {},
): Promise<Map<number, number>> => {
  await server.idle();
  const counts = new Map<number, number>();
  const headers: Record<string, string> = o.apiKey === undefined ? {} : { Authorization: `Bearer ${o.apiKey}` };
  const pattern = o.pattern ?? /MK(\d+)\b/g;
  const list = await call(server, 'GET', `/v1/default/banks/${bank}/documents?limit=1000`, undefined, headers);
  if (list.status === 404) return counts;
  if (list.status !== 200) throw new Error(`listing ${bank}: ${list.status}`);
  for (const item of list.body.items as { id: string }[]) {
    const doc = await call(server, 'GET', `/v1/default/banks/${bank}/documents/${encodeURIComponent(item.id)}`, undefined, headers);
    for (const m of String(doc.body.original_text ?? '').matchAll(pattern)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
  }
  return counts;
};

/** Markers not there exactly once, as `n x count`. */
export const notOnce = (counts: Map<number, number>, expected: readonly number[]): string[] =>
  [...new Set([...expected, ...counts.keys()])].filter((n) => counts.get(n) !== 1).map((n) => `MK${n} x${counts.get(n) ?? 0}`);
