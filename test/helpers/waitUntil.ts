/** Polls `check` every 20 ms until it holds; throws after `ms` with what was awaited. */
export const waitUntil = async (check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
