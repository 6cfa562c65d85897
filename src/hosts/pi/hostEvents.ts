/**
 * Events later pi lines emit that 0.73's types do not name. The extension is typed against
 * 0.73 (`@mariozechner`); these are registered through this view. On a host that never emits
 * one, its handler simply never runs. Shapes were read from pi 0.87.1's extensions/types.d.ts.
 */
import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';

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

/**
 * pi's `on` registers any event name at run time; on a pi line whose types name these events
 * this narrows the API to a view that has them (a host that never emits one never calls it).
 */
export const hasNewerEvents = (pi: ExtensionAPI): pi is ExtensionAPI & NewerHostEvents => typeof pi.on === 'function';
