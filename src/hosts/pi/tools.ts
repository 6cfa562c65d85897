/** Registers the tool catalogue with pi: typebox parameters from each tool's JSON schema. */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { Type, type TSchema } from 'typebox';
import { executeForHost, toolCatalogue } from '../../tools/catalogue.js';
import { requireRuntime, type RuntimeHolder } from './holder.js';

export const registerMemoryTools = (pi: ExtensionAPI, holder: RuntimeHolder): string[] => {
  const registered: string[] = [];
  for (const tool of toolCatalogue) {
    pi.registerTool({
      name: tool.name,
      label: tool.label,
      description: tool.description,
      promptSnippet: tool.promptSnippet,
      // The catalogue's schema is plain JSON Schema, which typebox 1.x takes as is.
      parameters: Type.Unsafe<Record<string, unknown>>(tool.parameters as TSchema),
      execute: async (_toolCallId, params, signal) => {
        const runtime = await requireRuntime(holder);
        const ctx = await runtime.toolContext(signal === undefined ? {} : { signal });
        return executeForHost(tool, params, ctx);
      },
    });
    registered.push(tool.name);
  }
  return registered;
};
