/**
 * What reached the memory server, read over its HTTP API: every `<cm:N>` marker in the bank's
 * documents (their full original text), with how many times it occurs. Waits first until the
 * server has no pending async retain operation, so nothing accepted is still on its way.
 */
const MARKER = /<cm:(\d+)>/g;

const getJson = async (url: string, key: string, path: string): Promise<unknown> => {
  const res = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

/**
 * Resolves when the bank has no pending operation that does work, or after `timeoutMs`, with
 * how many are still pending. Parents of sub-batches are left out: their children carry the
 * items, and a parent whose children all completed can stay `pending` after a server kill
 * (start-up resumes only childless operations), which says nothing about what was applied.
 */
export const waitForOperations = async (url: string, key: string, bank: string, timeoutMs: number): Promise<number> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const body = (await getJson(url, key, `/v1/default/banks/${encodeURIComponent(bank)}/operations?status=pending&exclude_parents=true&limit=1`)) as { total?: number };
    const pending = body.total ?? 0;
    if (pending === 0 || Date.now() > end) return pending;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/** Pending parents of sub-batches (see above): a server finding the table does not count. */
export const stuckParents = async (url: string, key: string, bank: string): Promise<number> => {
  const all = (await getJson(url, key, `/v1/default/banks/${encodeURIComponent(bank)}/operations?status=pending&limit=1`)) as { total?: number };
  return all.total ?? 0;
};

/** Marker -> occurrences across every document of the bank. */
export const markersOnServer = async (url: string, key: string, bank: string): Promise<Map<number, number>> => {
  const counts = new Map<number, number>();
  const base = `/v1/default/banks/${encodeURIComponent(bank)}/documents`;
  for (let offset = 0; ; offset += 500) {
    const page = (await getJson(url, key, `${base}?limit=500&offset=${offset}`)) as { items: { id: string }[]; total: number };
    for (const item of page.items) {
      const doc = (await getJson(url, key, `${base}/${encodeURIComponent(item.id)}`)) as { original_text?: string };
      for (const m of String(doc.original_text ?? '').matchAll(MARKER)) {
        const n = Number(m[1]);
        counts.set(n, (counts.get(n) ?? 0) + 1);
      }
    }
    if (page.items.length === 0 || offset + page.items.length >= page.total) return counts;
  }
};
