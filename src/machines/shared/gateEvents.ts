/**
 * A gate's events from one declaration: each entry (`'retain.failed': fields({ runId }, { reason })`)
 * becomes the event's codec (`type` `<gate>.<name>`, `at` in epoch ms, its required and
 * optional fields), a member of the union the gate decodes with, and a constructor in wire
 * shape (`events.make.retainFailed({ at, runId })`). Every type carries its gate's name, so two
 * gates never share one (`session.retain.failed` is not the delivery gate's `retain.failed`).
 *
 * Journals written before the names carried their gate (`retain.failed` in a session journal)
 * still decode with `readsUnprefixed`: such a record is read as `<gate>.<name>`.
 */
import * as t from 'io-ts';
import { EpochMs } from '../../codecs/codecs.js';

/** An event's fields: those it always has and those it may have. */
export interface EventFields<R extends t.Props, O extends t.Props> {
  readonly required: R;
  readonly optional: O;
}

type NoProps = Record<never, never>;

// Overloads, not defaults: a call's type would otherwise be inferred from the declaration's
// `t.Props` around it, and an event without optional fields would accept any key.
export function fields(): EventFields<NoProps, NoProps>;
export function fields<R extends t.Props>(required: R): EventFields<R, NoProps>;
export function fields<R extends t.Props, O extends t.Props>(required: R, optional: O): EventFields<R, O>;
export function fields(required: t.Props = {}, optional: t.Props = {}): EventFields<t.Props, t.Props> {
  return { required, optional };
}

type Declaration = Record<string, EventFields<t.Props, t.Props>>;

/** `retain.failed` -> `retainFailed`: the constructor's name. */
type CamelName<S extends string> = S extends `${infer Head}.${infer Rest}` ? `${Head}${Capitalize<CamelName<Rest>>}` : S;

type EventCodec<T extends string, F extends EventFields<t.Props, t.Props>, Common extends t.Props> = t.IntersectionC<
  [t.TypeC<{ type: t.LiteralC<T>; at: typeof EpochMs } & F['required']>, t.PartialC<Common & F['optional']>]
>;

type Codecs<G extends string, D extends Declaration, Common extends t.Props> = { readonly [K in keyof D & string]: EventCodec<`${G}.${K}`, D[K], Common> };

type Member<G extends string, D extends Declaration, Common extends t.Props> = Codecs<G, D, Common>[keyof D & string];

/** An event's fields in wire shape, without its `type`. */
type Input<C extends t.Mixed> = Omit<t.OutputOf<C>, 'type'>;

type Constructors<G extends string, D extends Declaration, Common extends t.Props> = {
  readonly [K in keyof D & string as CamelName<K>]: (fields: Input<Codecs<G, D, Common>[K]>) => t.OutputOf<Codecs<G, D, Common>[K]>;
};

export interface GateEvents<G extends string, D extends Declaration, Common extends t.Props> {
  /** Each event's codec, by its name in the declaration. */
  readonly codecs: Codecs<G, D, Common>;
  /** The codec the gate decodes its inputs and its journal with. */
  readonly codec: t.Type<t.TypeOf<Member<G, D, Common>>, t.OutputOf<Member<G, D, Common>>, unknown>;
  /** One constructor per event, in wire shape: effects build events only through these. */
  readonly make: Constructors<G, D, Common>;
  /** Every event type of the gate. */
  readonly types: readonly `${G}.${keyof D & string}`[];
}

export interface GateEventsOptions<Common extends t.Props> {
  /** Optional fields every event of the gate may carry (the delivery gate's `replica`). */
  readonly common?: Common;
  /** Also read records whose type lacks the gate's prefix (journals from before it). */
  readonly readsUnprefixed?: boolean;
}

const camel = (name: string): string => name.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase());

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null;

export const defineGateEvents = <G extends string, D extends Declaration, Common extends t.Props = NoProps>(
  gate: G,
  declaration: D,
  options: GateEventsOptions<Common> = {},
): GateEvents<G, D, Common> => {
  const codecs: Record<string, t.Mixed> = {};
  const make: Record<string, (fields: object) => object> = {};
  for (const [name, { required, optional }] of Object.entries(declaration)) {
    const type = `${gate}.${name}`;
    codecs[name] = t.intersection([t.type({ type: t.literal(type), at: EpochMs, ...required }), t.partial({ ...options.common, ...optional })]);
    make[camel(name)] = (given) => ({ ...given, type });
  }
  const members = Object.values(codecs);
  const [first, second, ...rest] = members;
  if (first === undefined || second === undefined) throw new Error(`gate ${gate} declares fewer than two events`);
  const union = t.union([first, second, ...rest]);
  const local = new Set(Object.keys(declaration));
  const prefixed = (u: unknown): unknown => (isRecord(u) && typeof u['type'] === 'string' && local.has(u['type']) ? { ...u, type: `${gate}.${u['type']}` } : u);
  // Still a union to io-ts (decode errors, `decodesToItself`): `is` accepts only prefixed types,
  // for which `validate` returns its input, as an identity codec must.
  const codec = options.readsUnprefixed === true ? new t.UnionType(union.name, union.is, (u, c) => union.validate(prefixed(u), c), union.encode, union.types) : union;
  // The record-of-codecs and record-of-constructors are built from `declaration`'s own keys,
  // which is what the mapped types say; TypeScript cannot follow a loop over Object.entries.
  return { codecs, codec, make, types: Object.keys(declaration).map((name) => `${gate}.${name}`) } as unknown as GateEvents<G, D, Common>;
};
