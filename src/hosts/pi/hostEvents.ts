/**
 * Events later pi lines emit that 0.73's types do not name. The extension is typed against
 * 0.73 (`@mariozechner`); these are registered through this view. On a host that never emits
 * one, its handler simply never runs. Shapes were read from pi 0.87.1's extensions/types.d.ts.
 */
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';

/** pi 0.79.1+: the effective project trust decision. */
export interface TrustAwareContext extends ExtensionContext {
  isProjectTrusted?: () => boolean;
}

export interface ProjectTrustEvent {
  readonly type: 'project_trust';
  readonly cwd: string;
}

export interface NewerHostEvents {
  /** 0.80.5+: the run is over, no retry or continuation follows. */
  on(event: 'agent_settled', handler: (event: { readonly type: 'agent_settled' }, ctx: ExtensionContext) => unknown): unknown;
  /** 0.80.3+: the session's name changed. */
  on(event: 'session_info_changed', handler: (event: { readonly type: 'session_info_changed'; readonly name: string | undefined }, ctx: ExtensionContext) => unknown): unknown;
  /** 0.79.0+: a trust decision is being made; only yes/no decide, `undecided` passes it on. */
  on(event: 'project_trust', handler: (event: ProjectTrustEvent) => { readonly trusted: 'undecided' } | Promise<{ readonly trusted: 'undecided' }>): unknown;
}
