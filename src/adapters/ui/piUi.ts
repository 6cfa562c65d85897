/**
 * The UI port over pi's `ctx.ui` (pi-host.md 1.5). Only the methods both pi lines share are
 * read, structurally, so nothing of pi is imported here. Without a UI (print, json) pi's
 * dialogs answer undefined/false at once; `interactive` says so before anything is asked.
 */
import type { UiLevel, UiPort } from '../../effects/ports/ui.js';

/** The part of pi's `ExtensionUIContext` this port uses. */
export interface PiUiContext {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  notify(message: string, type?: UiLevel): void;
  setStatus(key: string, text: string | undefined): void;
}

export const piUi = (ui: PiUiContext, hasUI: boolean, onHeadless?: (text: string, level: UiLevel) => void): UiPort => ({
  interactive: hasUI,
  select: (title, options) => (hasUI ? ui.select(title, [...options]) : Promise.resolve(undefined)),
  confirm: (title, message) => (hasUI ? ui.confirm(title, message) : Promise.resolve(false)),
  input: (title, placeholder) => (hasUI ? ui.input(title, placeholder) : Promise.resolve(undefined)),
  notify: (text, level) => {
    ui.notify(text, level);
    // pi drops notifications without a UI: a warning must still reach the person (stderr).
    if (!hasUI && level !== 'info') onHeadless?.(text, level);
  },
  setStatus: (key, text) => ui.setStatus(key, text),
});
