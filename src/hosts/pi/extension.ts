/**
 * The pi extension entry. pi loads every extension before its first prompt, so this file is
 * kept tiny: it registers the tools, commands and event handlers from a generated manifest
 * and loads the binding (config, codecs, tools, gates) only when the first of them runs,
 * usually `session_start`. Everything then runs exactly as the binding registered it.
 */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { Type, type TSchema } from 'typebox';
import { piManifest } from './manifest.generated.js';
import { createRecordingHost, type Recording } from './recordingHost.js';

type AnyHandler = (event: unknown, ctx: unknown) => unknown;

const missing = (what: string): Error => new Error(`agent-memory: ${what} is registered by the entry but not by the binding; the build is out of date (npm run pi:manifest && npm run build)`);

export default function agentMemory(pi: ExtensionAPI): void {
  let loading: Promise<Recording> | undefined;
  const binding = (): Promise<Recording> =>
    (loading ??= import('./binding.js').then(({ registerAgentMemory }) => {
      const { api, recording } = createRecordingHost(pi);
      registerAgentMemory(api);
      return recording;
    }));

  for (const tool of piManifest.tools) {
    pi.registerTool({
      name: tool.name,
      label: tool.label,
      description: tool.description,
      ...(tool.promptSnippet === undefined ? {} : { promptSnippet: tool.promptSnippet }),
      parameters: Type.Unsafe<Record<string, unknown>>(tool.parameters as TSchema),
      execute: async (...args) => {
        const recorded = (await binding()).tools.get(tool.name);
        if (recorded === undefined) throw missing(`tool ${tool.name}`);
        return (await (recorded.execute as (...a: typeof args) => Promise<unknown>)(...args)) as Awaited<ReturnType<Parameters<ExtensionAPI['registerTool']>[0]['execute']>>;
      },
    });
  }

  for (const command of piManifest.commands) {
    pi.registerCommand(command.name, {
      ...(command.description === undefined ? {} : { description: command.description }),
      handler: async (args, ctx) => {
        const recorded = (await binding()).commands.get(command.name);
        if (recorded === undefined) throw missing(`command /${command.name}`);
        await (recorded.handler as (a: string, c: typeof ctx) => Promise<void>)(args, ctx);
      },
    });
  }

  const on = pi.on.bind(pi) as unknown as (event: string, handler: AnyHandler) => void;
  for (const event of piManifest.events) {
    on(event, async (payload, ctx) => {
      let result: unknown;
      for (const handler of (await binding()).handlers.get(event) ?? []) {
        const answer = await (handler as AnyHandler)(payload, ctx);
        if (answer !== undefined) result = answer;
      }
      return result;
    });
  }
}
