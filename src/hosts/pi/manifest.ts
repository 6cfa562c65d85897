/** What pi's light entry registers before the binding is loaded (see `manifest.generated.ts`). */
export interface PiManifest {
  readonly tools: readonly {
    readonly name: string;
    readonly label: string;
    readonly description: string;
    readonly promptSnippet?: string;
    readonly parameters: Record<string, unknown>;
  }[];
  readonly commands: readonly { readonly name: string; readonly description?: string }[];
  readonly events: readonly string[];
}
