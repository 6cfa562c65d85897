/** Work the session started but nobody awaits (recorded outcomes, hand-offs): `idle()` waits for it. */
const noop = (): void => undefined;

export interface InFlight {
  track<T>(p: Promise<T>): Promise<T>;
  /** A copy of what is in flight now. */
  current(): readonly Promise<unknown>[];
  /** Resolves once nothing is in flight, including work started while waiting. */
  idle(): Promise<void>;
}

export const createInFlight = (): InFlight => {
  const pending = new Set<Promise<unknown>>();
  return {
    track: (p) => {
      pending.add(p);
      void p.finally(() => pending.delete(p)).catch(noop);
      return p;
    },
    current: () => [...pending],
    idle: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
};
