/**
 * The `agent-memory` subcommands. Each lives in `commands/<name>.ts` and exports a `Command`;
 * this table is the only list of them. It holds what help lists, and loads a command's module
 * only to run it: `serve` then never loads the client, the importer or the visualiser (the HTTP
 * client alone, through a dependency's `Intl.ListFormat`, maps 4-5 MB of ICU data).
 */
export interface Command {
  readonly usage: string;
  /** Runs the command; resolves to the process exit code. */
  readonly run: (argv: readonly string[]) => Promise<number>;
}

/** A row of the table: the command's name and one-line summary, and its module's command. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

export const commands: readonly CommandEntry[] = [
  { name: 'start', summary: 'run the main job: a pi session with memory, end to end, on the embedded server', load: async () => (await import('./commands/start.js')).startCommand },
  { name: 'serve', summary: 'run the embedded Hindsight-compatible memory server', load: async () => (await import('./commands/serve.js')).serveCommand },
  { name: 'status', summary: 'memory status of this directory: setup, banks, queue, last recall and retain (read-only)', load: async () => (await import('./commands/doctor.js')).statusCliCommand },
  { name: 'doctor', summary: 'diagnose memory in this directory: server, floor, key (never shown), banks, queue, state dir', load: async () => (await import('./commands/doctor.js')).doctorCliCommand },
  { name: 'flush', summary: 'deliver queued retain jobs now (progress bar), then report what is left and why', load: async () => (await import('./commands/flush.js')).flushCommand },
  { name: 'dead-letters', summary: 'retain jobs the server refused for good: list with reasons, requeue or drop them', load: async () => (await import('./commands/deadLetters.js')).deadLettersCliCommand },
  { name: 'import', summary: 'import past sessions of this project (pi, Claude Code, Codex) into memory (dry run, progress, resumable)', load: async () => (await import('./commands/import.js')).importCommand },
  { name: 'scope', summary: 'show the effective config and the banks and tags of this directory', load: async () => (await import('./commands/scope.js')).scopeCommand },
  { name: 'viz', summary: 'draw the state machines, or replay a recorded trace in the browser', load: async () => (await import('./commands/viz.js')).vizCommand },
  { name: 'ui', summary: 'browse, search, explain and correct memories; manage the queue; watch live sessions', load: async () => (await import('./commands/ui.js')).uiCommand },
];
