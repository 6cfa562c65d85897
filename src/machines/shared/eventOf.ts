/**
 * One constructor per event: `eventOf<typeof RunEnded>('run.ended')({ at, runId })` builds the
 * event in its wire shape (brands are checked again when the gate decodes it), so an effect
 * that builds a wrong event does not compile, and no effect casts an event.
 */
import type * as t from 'io-ts';

/** An event's fields in wire shape, without its `type`. */
export type EventFields<C extends t.Any> = Omit<t.OutputOf<C>, 'type'>;

export const eventOf =
  <C extends t.Any>(type: t.OutputOf<C>['type']) =>
  (fields: EventFields<C>): t.OutputOf<C> =>
    // The spread of `Omit<X, 'type'>` plus `type` is X; TypeScript cannot see that through Omit.
    ({ ...fields, type }) as t.OutputOf<C>;
