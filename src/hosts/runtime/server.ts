/**
 * The runtime's server client: the API key config may use, and no client at all for an
 * origin the person has not trusted (no probe, no recall, no retain, no tool call).
 */
import * as path from 'node:path';
import { createBlockedServer } from '../../adapters/server/blocked.js';
import { createMemoryServer } from '../../adapters/server/client.js';
import type { LoadedConfig } from '../../config/load.js';
import { resolveApiKey, trustNotice } from '../../config/trust.js';
import type { ClockPort } from '../../effects/ports/clock.js';
import type { MemoryServer } from '../../effects/ports/memoryServer.js';

export interface RuntimeServerOptions {
  readonly loaded: LoadedConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: ClockPort;
  readonly memoryDir: string;
  /** Why the state dir is refused; the health file is then not written. */
  readonly refusal: string | undefined;
  readonly userAgent: string | undefined;
  /** A client to use instead (tests, other hosts). */
  readonly given: MemoryServer | undefined;
}

export interface RuntimeServer {
  readonly server: MemoryServer;
  /** Why memory cannot use the server fully (untrusted origin, key withheld). */
  readonly problem: string | undefined;
}

export const runtimeServer = (o: RuntimeServerOptions): RuntimeServer => {
  const { config } = o.loaded;
  const key = resolveApiKey(o.loaded, o.env);
  const distrust = trustNotice(o.loaded.trust);
  const problem = distrust ?? (key._tag === 'withheld' ? key.reason : undefined);
  const server =
    o.given ??
    (distrust !== undefined ? createBlockedServer(config.baseUrl, distrust) : undefined) ??
    createMemoryServer({
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs,
      clock: o.clock,
      // Shared with every process of this project: a new one does not pay a dead server again.
      ...(o.refusal === undefined ? { healthFile: path.join(o.memoryDir, 'server-health.json') } : {}),
      ...(key._tag === 'key' ? { apiKey: key.key } : {}),
      ...(o.userAgent === undefined ? {} : { userAgent: o.userAgent }),
    });
  return { server, problem };
};
