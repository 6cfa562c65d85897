/** The setup gate's context. */
export interface SetupContext {
  readonly enabled: boolean;
  readonly configured: boolean;
  readonly banks: readonly string[];
  readonly missingBanks: readonly string[];
  readonly apiVersion: string | null;
  /** Why the gate is where it is, in words a user can act on (redacted by the effects). */
  readonly detail: string | null;
  /** While degraded: when to probe again (epoch ms); kept in context so a restore keeps it. */
  readonly retryAt: number | null;
  readonly probes: number;
  /** What the person answered, for the visualiser and the hub (never a secret). */
  readonly person: PersonRecord;
}

export interface PersonRecord {
  readonly firstRun: 'setup' | 'later' | 'never' | 'told' | null;
  /** The guided setup in progress: its answers by step; null when none is open. */
  readonly guide: { readonly via: string; readonly answers: Readonly<Record<string, string>>; readonly skipped: readonly string[] } | null;
  /** How the last guided setup ended. */
  readonly lastGuide: 'written' | 'cancelled' | 'failed' | null;
  readonly writes: number;
}

export const initialSetupContext: SetupContext = {
  enabled: true,
  configured: false,
  banks: [],
  missingBanks: [],
  apiVersion: null,
  detail: null,
  retryAt: null,
  probes: 0,
  person: { firstRun: null, guide: null, lastGuide: null, writes: 0 },
};

/** The lowest server line automatic memory supports (append retain, deterministic document ids). */
export const SERVER_FLOOR = { major: 0, minor: 8 } as const;
export const FLOOR_REMEDIATION = 'upgrade the server to 0.8 or later';

/** `0.9.1`, `v0.10.0-rc1` -> below the floor? An unparsable version is judged by `append` alone. */
export const belowFloor = (apiVersion: string): boolean => {
  const m = /^v?(\d+)\.(\d+)/.exec(apiVersion.trim());
  if (m === null) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major < SERVER_FLOOR.major || (major === SERVER_FLOOR.major && minor < SERVER_FLOOR.minor);
};
