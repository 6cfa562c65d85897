/**
 * A tool: name, what the agent reads, parameters (codec + JSON schema) and a handler.
 * `runTool` is the one way to call one: decode (bad input answered by field, nothing sent),
 * the master switch, then the handler; an unexpected throw becomes a redacted error.
 */
import * as E from 'fp-ts/lib/Either.js';
import { MAX_JSON_DEPTH, decodeWith } from '../codecs/decode.js';
import { redact } from '../config/redact.js';
import { trustNotice } from '../config/trust.js';
import type { ToolContext } from './context.js';
import { disabledText } from './disabled.js';
import type { ToolParams } from './params.js';
import { paramIssue } from './paramSize.js';
import { fail, invalidParams, ok, type ToolOutcome } from './result.js';

export interface ToolDefinition<A = unknown> {
  readonly name: string;
  /** Shown in the host UI. */
  readonly label: string;
  /** What the model reads when choosing the tool. */
  readonly description: string;
  /** One line for the system prompt's tool list. */
  readonly promptSnippet: string;
  readonly params: ToolParams<A>;
  /** Runs while memory is disabled (`enabled: false`): only read-only reporting tools. */
  readonly runsWhenDisabled?: boolean;
  /**
   * Its parameters reach the handler as the model gave them, unredacted: only for a tool that
   * refuses a secret-looking value by field itself (memory_config), where `[REDACTED]` would be
   * written in the secret's place instead.
   */
  readonly paramsUnredacted?: boolean;
  readonly handler: (params: A, ctx: ToolContext) => Promise<ToolOutcome>;
}

export const defineTool = <A>(tool: ToolDefinition<A>): ToolDefinition<A> => tool;

/** Every string of a tool call's parameters redacted (keys kept), at any depth the codec would read. */
const redactParams = (value: unknown, depth = 0): unknown => {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactParams(v, depth + 1));
  const out: Record<string, unknown> = {};
  // defineProperty: a `__proto__` key stays a plain field.
  for (const [key, v] of Object.entries(value)) Object.defineProperty(out, key, { value: redactParams(v, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
};

export const runTool = async <A>(tool: ToolDefinition<A>, rawParams: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
  if (ctx.signal?.aborted === true) return fail('aborted', `${tool.name} was cancelled before it started; nothing was sent.`);
  // One walk before anything reads the text. Nesting first: every later walk (redaction, the
  // codec, its error text) recurses, and parameters nested 200,000 deep threw a stack overflow
  // out of the call instead of failing it by field. Then sizes: redaction (and memory_config's
  // secret check) read every character, so a 5 MB string cost ~0.6 s of CPU before the codec
  // refused it as too long.
  const issue = paramIssue(tool.params.schema, rawParams);
  if (issue?.kind === 'nesting') return fail('invalidParams', `${tool.name}: the parameters are nested deeper than ${MAX_JSON_DEPTH} levels; nothing was sent.`);
  if (issue !== undefined) {
    return fail('invalidParams', `tool ${tool.name}: field ${issue.path}: ${issue.problem}. Nothing was sent; shorten it and call again.`, { field: issue.path });
  }
  // A query, a model's name or source query, a mission: text the model wrote from a context that
  // may hold a pasted secret, sent to the server as it is (only retained content passes the queue's redaction).
  const decoded = decodeWith(tool.params.codec, `tool ${tool.name}`)(tool.paramsUnredacted === true ? rawParams : redactParams(rawParams));
  if (E.isLeft(decoded)) return invalidParams(decoded.left);
  if (!ctx.loaded.config.enabled && tool.runsWhenDisabled !== true) {
    const distrust = trustNotice(ctx.loaded.trust);
    if (distrust !== undefined) return ok(`Memory is off: ${distrust}. Nothing was sent.`, { disabled: true, untrusted: true });
    return ok(disabledText(ctx.loaded, tool.name), { disabled: true });
  }
  try {
    return await tool.handler(decoded.right, ctx);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return fail('io', `${tool.name} failed unexpectedly: ${redact(message)}. Run /memory:doctor to check the setup.`);
  }
};
