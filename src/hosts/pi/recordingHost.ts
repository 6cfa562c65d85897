/**
 * A stand-in for pi's ExtensionAPI that records what an extension registers: its tools,
 * commands and event handlers. The light entry (`extension.ts`) runs the real binding against
 * it when the first event arrives, then forwards pi's calls to what was recorded; the
 * manifest script runs it once at build time to learn what the entry must register up front.
 * The one call the binding makes on pi later, at run time (`appendEntry`, the not-kept mark),
 * goes through to the real pi the entry was given.
 */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/** A registered tool as pi receives it; only the fields the entry forwards are typed. */
export interface RecordedTool {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly promptSnippet?: string;
  readonly parameters: unknown;
  readonly execute: (...args: never[]) => Promise<unknown>;
}

export interface RecordedCommand {
  readonly description?: string;
  readonly handler: (args: string, ctx: never) => Promise<void>;
}

export type RecordedHandler = (event: never, ctx: never) => unknown;

export interface Recording {
  readonly tools: ReadonlyMap<string, RecordedTool>;
  readonly commands: ReadonlyMap<string, RecordedCommand>;
  readonly handlers: ReadonlyMap<string, readonly RecordedHandler[]>;
}

/** What the binding calls on pi after registering; the entry passes pi itself. */
export type PiRuntimeCalls = Pick<ExtensionAPI, 'appendEntry'>;

export const createRecordingHost = (real?: PiRuntimeCalls): { readonly api: ExtensionAPI; readonly recording: Recording } => {
  const tools = new Map<string, RecordedTool>();
  const commands = new Map<string, RecordedCommand>();
  const handlers = new Map<string, RecordedHandler[]>();
  const host = {
    registerTool: (tool: RecordedTool): void => {
      tools.set(tool.name, tool);
    },
    registerCommand: (name: string, command: RecordedCommand): void => {
      commands.set(name, command);
    },
    on: (event: string, handler: RecordedHandler): void => {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
    appendEntry: (customType: string, data?: unknown): void => {
      // The manifest script has no pi; the binding only appends at agent_end, which it never sends.
      if (real === undefined) throw new Error('agent-memory: appendEntry needs the real pi (the recording host was made without it)');
      real.appendEntry(customType, data);
    },
  };
  // The binding calls only these; anything else it tried would throw here, and the
  // manifest test runs the binding against this host.
  return { api: host as unknown as ExtensionAPI, recording: { tools, commands, handlers } };
};
