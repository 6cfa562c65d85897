/** Polls `check` every 20 ms until it holds; throws after `ms` naming what was awaited; resolves the ms it took. */
export const waitUntil = async (check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<number> => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
};
