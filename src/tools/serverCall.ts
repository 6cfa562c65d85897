/**
 * Calling the memory server from a tool: every call carries the host's abort signal and an
 * absolute deadline (config timeoutMs), and every failure becomes a readable, redacted error
 * that says what to do next. Capability gates check the server's feature flags before an
 * optional field is sent, so a request is never silently reshaped.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { redact } from '../config/redact.js';
import type { ToolContext } from './context.js';
import { describeFailure, type CallOptions, type Capabilities, type CapabilityName, type ServerFailure } from '../effects/ports/memoryServer.js';
import { fail, type ToolOutcome } from './result.js';

export const callOptions = (ctx: ToolContext, timeoutMs: number = ctx.loaded.config.timeoutMs): CallOptions => ({
  deadline: ctx.clock.now() + timeoutMs,
  ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
});

export const runCall = async <A>(call: TaskEither<ServerFailure, A>): Promise<E.Either<ServerFailure, A>> => {
  try {
    return await call();
  } catch (cause) {
    // A port must not throw; if one does, the failure still reads like the others.
    return E.left({ _tag: 'badResponse', detail: redact(cause instanceof Error ? cause.message : String(cause)) });
  }
};

export const failureOutcome = (ctx: ToolContext, what: string, f: ServerFailure): ToolOutcome => {
  const text = `${what}: ${describeFailure(f)} (server ${ctx.server.baseUrl})`;
  if (f._tag === 'unsupportedCapability') return fail('unsupportedCapability', text, { details: { feature: f.feature, remediation: f.remediation } });
  if (f._tag === 'aborted') return fail('aborted', `${what} was cancelled.`);
  return fail('server', text, { details: { failure: f._tag } });
};

export const unsupported = (feature: string, serverVersion: string | undefined, remediation: string): ToolOutcome =>
  fail(
    'unsupportedCapability',
    `unsupported capability: ${feature} is not supported by the connected memory server${serverVersion === undefined ? '' : ` (version ${serverVersion})`}. The request was not sent. ${remediation}`,
    { details: { feature, ...(serverVersion === undefined ? {} : { serverVersion }) } },
  );

/** The server's capabilities (cached by the adapter per base URL), or the call's failure. */
export const loadCapabilities = async (ctx: ToolContext, what: string): Promise<E.Either<ToolOutcome, Capabilities>> => {
  const caps = await runCall(ctx.server.capabilities(callOptions(ctx)));
  return E.isLeft(caps) ? E.left(failureOutcome(ctx, what, caps.left)) : E.right(caps.right);
};

export interface WantedFeature {
  readonly flag: CapabilityName;
  readonly label: string;
}

/** Refuses, before anything is sent, when the server lacks a feature the call asked for. */
export const missingFeatures = (caps: Capabilities, wanted: readonly WantedFeature[]): ToolOutcome | undefined => {
  const missing = wanted.filter((w) => !caps.features[w.flag]);
  if (missing.length === 0) return undefined;
  return unsupported(
    [...new Set(missing.map((m) => m.label))].join(', '),
    caps.apiVersion,
    'Leave the option out, or upgrade the memory server to a version that supports it.',
  );
};

/** Loads capabilities and checks `wanted`; undefined when the call may go ahead. */
export const requireFeatures = async (ctx: ToolContext, what: string, wanted: readonly WantedFeature[]): Promise<ToolOutcome | undefined> => {
  if (wanted.length === 0) return undefined;
  const caps = await loadCapabilities(ctx, what);
  return E.isLeft(caps) ? caps.left : missingFeatures(caps.right, wanted);
};
