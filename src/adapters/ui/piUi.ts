/**
 * The UI port over pi's `ctx.ui` (pi-host.md 1.5). Only the methods both pi lines share are
 * read, structurally, so nothing of pi is imported here. Without a UI (print, json) pi's
 * dialogs answer undefined/false at once; `interactive` says so before anything is asked.
 * Every text shown has its terminal controls written out (`terminalText`): a repository's
 * config values reach the doctor's report, and pi's screen is a terminal.
 */
import type { UiLevel, UiPort } from '../../effects/ports/ui.js';
import { terminalText as shown } from '../../config/memoryText.js';

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
  select: async (title, options) => {
    if (!hasUI) return undefined;
    // The person picks what was shown; the caller gets back its own option.
    const picked = await ui.select(shown(title), options.map(shown));
    return picked === undefined ? undefined : (options.find((option) => shown(option) === picked) ?? picked);
  },
  confirm: (title, message) => (hasUI ? ui.confirm(shown(title), shown(message)) : Promise.resolve(false)),
  input: (title, placeholder) => (hasUI ? ui.input(shown(title), placeholder === undefined ? undefined : shown(placeholder)) : Promise.resolve(undefined)),
  notify: (text, level) => {
    ui.notify(shown(text), level);
    // pi drops notifications without a UI: a warning must still reach the person (stderr).
    if (!hasUI && level !== 'info') onHeadless?.(shown(text), level);
  },
  setStatus: (key, text) => ui.setStatus(key, text === undefined ? undefined : shown(text)),
});
