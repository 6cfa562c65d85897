/**
 * What a person sees and answers: pi's `ctx.ui` dialogs (`src/adapters/ui/piUi.ts`) or a
 * scripted twin that answers from a list (`src/adapters/ui/scriptedUi.ts`). A dialog a person
 * dismisses (Esc, or no UI at all) answers `undefined` / `false`: every caller treats that as
 * "cancel", never as a choice.
 */
export type UiLevel = 'info' | 'warning' | 'error';

export interface UiPort {
  /** False in print and json modes and for an RPC client without dialogs: never ask, only say. */
  readonly interactive: boolean;
  /** One of `options`, or undefined when dismissed. */
  select(title: string, options: readonly string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  /** The text typed, or undefined when dismissed. */
  input(title: string, placeholder?: string): Promise<string | undefined>;
  notify(text: string, level: UiLevel): void;
  /** A footer line under `key`; undefined clears it. */
  setStatus(key: string, text: string | undefined): void;
}
