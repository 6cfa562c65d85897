/**
 * The pi extension entry. pi loads an extension through its default export, a factory
 * that receives the ExtensionAPI; everything it does is delegated to the binding.
 */
export default function agentMemory(): void {
  // Wired by the session gate work (issue 7).
}
