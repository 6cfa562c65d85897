/**
 * The pi extension entry. pi loads an extension through its default export, a factory
 * that receives the ExtensionAPI; everything it does is delegated to the binding.
 */
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { registerAgentMemory } from './binding.js';

export default function agentMemory(pi: ExtensionAPI): void {
  registerAgentMemory(pi);
}
