/**
 * The one way machine context changes: an `assign` whose recipe mutates an immer draft.
 * immer freezes the result, so nothing outside a recipe can change context by accident.
 */
import { produce, type Draft } from 'immer';
import { assign, type EventObject, type MachineContext, type ParameterizedObject, type ProvidedActor } from 'xstate';

export interface ImmerRecipeArgs<TContext extends MachineContext, TEvent extends EventObject> {
  readonly event: TEvent;
  readonly context: TContext;
}

/**
 * @example
 * actions: { countRetry: immerAssign(({ context }) => { context.retries += 1; }) }
 */
export const immerAssign = <
  TContext extends MachineContext,
  TExpressionEvent extends EventObject = EventObject,
  TParams extends ParameterizedObject['params'] | undefined = undefined,
  TEvent extends EventObject = TExpressionEvent,
  // `never` matches what `setup()` expects of a machine without child actors.
  TActor extends ProvidedActor = never,
>(
  recipe: (draft: Draft<TContext>, args: ImmerRecipeArgs<TContext, TExpressionEvent>, params: TParams) => void,
) =>
  assign<TContext, TExpressionEvent, TParams, TEvent, TActor>(({ context, event }, params) =>
    produce(context, (draft) => {
      recipe(draft, { context, event }, params);
    }),
  );
