/**
 * Fault injection for tests (reference 8.6). A rule matches a method and a path glob (`*`
 * matches any characters, so `/v1/default/banks/` + `*` + `/memories` matches every bank), fires `times` times (forever when
 * absent), and does one thing: add latency, answer a status, drop the connection, stall,
 * send a malformed body, fail async operations, or report fields as ignored.
 */
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { decodeWith } from '../codecs/decode.js';
import { wildcard, type Wildcard } from './wildcard.js';

const Match = t.partial({
  /** HTTP method; any when absent. */
  method: t.string,
  /** Glob over the path (no query); any when absent. */
  path: t.string,
  /** Fires this many times, then the rule is spent. */
  times: t.number,
});

export const FaultRule = t.intersection([
  Match,
  t.union([
    t.type({ kind: t.literal('latency'), ms: t.number }),
    t.intersection([
      t.type({ kind: t.literal('status'), status: t.number }),
      t.partial({ retryAfterSeconds: t.number, detail: t.string }),
    ]),
    t.type({ kind: t.literal('drop') }),
    t.type({ kind: t.literal('stall') }),
    t.intersection([t.type({ kind: t.literal('malformed') }), t.partial({ body: t.string })]),
    t.intersection([t.type({ kind: t.literal('failOperation') }), t.partial({ message: t.string, taskType: t.string })]),
    t.intersection([t.type({ kind: t.literal('pendingOperation') }), t.partial({ taskType: t.string })]),
    t.type({ kind: t.literal('ignoreFields'), fields: t.array(t.string) }),
  ]),
]);
export type FaultRule = t.TypeOf<typeof FaultRule>;

const FaultRules = t.array(FaultRule);

const decodeFaultRules = (input: unknown): FaultRule[] => {
  const result = decodeWith(FaultRules, 'embedded server faults')(input);
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};


interface LiveRule {
  readonly rule: FaultRule;
  readonly path: Wildcard | undefined;
  remaining: number;
}

type OperationFault = Extract<FaultRule, { kind: 'failOperation' | 'pendingOperation' }>;
type HttpFault = Exclude<FaultRule, { kind: 'failOperation' | 'pendingOperation' | 'ignoreFields' }>;

export class FaultSet {
  private rules: LiveRule[] = [];

  constructor(rules: readonly FaultRule[] = []) {
    this.set(rules);
  }

  set(rules: readonly FaultRule[]): void {
    this.rules = decodeFaultRules(rules).map((rule) => ({
      rule,
      path: rule.path === undefined ? undefined : wildcard(rule.path),
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    }));
  }

  private take<K extends FaultRule['kind']>(
    kinds: readonly K[],
    method: string | undefined,
    path: string | undefined,
    extra: (rule: Extract<FaultRule, { kind: K }>) => boolean = () => true,
  ): Extract<FaultRule, { kind: K }>[] {
    const out: Extract<FaultRule, { kind: K }>[] = [];
    const isKind = (rule: FaultRule): rule is Extract<FaultRule, { kind: K }> => kinds.some((k) => k === rule.kind);
    for (const live of this.rules) {
      const rule = live.rule;
      if (live.remaining <= 0 || !isKind(rule)) continue;
      if (method !== undefined && rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (path !== undefined && live.path !== undefined && !live.path.test(path)) continue;
      if (!extra(rule)) continue;
      live.remaining -= 1;
      out.push(rule);
    }
    return out;
  }

  /** HTTP-level faults for this request (each matching rule is counted once). */
  forRequest(method: string, path: string): HttpFault[] {
    return this.take(['latency', 'status', 'drop', 'stall', 'malformed'], method, path);
  }

  /** Fields to report in X-Ignored-Params (and ignore) for this request. */
  ignoredFields(method: string, path: string): string[] {
    return this.take(['ignoreFields'], method, path).flatMap((r) => r.fields);
  }

  /** An operation fault for an async operation of `taskType` about to run, if any. */
  forOperation(taskType: string): OperationFault | undefined {
    return this.take(
      ['failOperation', 'pendingOperation'],
      undefined,
      undefined,
      (r) => r.taskType === undefined || r.taskType === taskType,
    )[0];
  }
}
