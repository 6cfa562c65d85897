/**
 * Joins the host's project-trust decision (pi 0.79+: `ctx.isProjectTrusted()`) with the
 * `memory.trustedOrigins` rule. A project file that moves `baseUrl` or names `apiKeyEnv` is
 * honoured with the user's key only when both allow it: pi trusts the project, and the origin
 * rule passes. `undefined` (a host without project trust, pi 0.73) leaves the origin rule alone.
 * The reason names the rule that decided, for the doctor.
 *
 * Local adapter: the project-trust rule proper belongs in trust.ts (issue 12); this joins the
 * host's answer to it until that function takes the host's boolean itself.
 */
import type { KeyTrust } from './trust.js';

export const joinHostTrust = <L extends { readonly trust: KeyTrust }>(loaded: L, hostTrusted: boolean | undefined): L => {
  const { trust } = loaded;
  if (hostTrusted === undefined) return { ...loaded, trust: { ...trust, reason: `${trust.reason} (rule: memory.trustedOrigins; this pi has no project trust)` } };
  const projectChose = trust.baseUrlSource === 'project' || trust.apiKeyEnvSource === 'project';
  if (hostTrusted || !projectChose) {
    const rule = hostTrusted ? 'pi trusts this project, and memory.trustedOrigins' : 'memory.trustedOrigins; the project file does not choose the server or key variable';
    return { ...loaded, trust: { ...trust, reason: `${trust.reason} (rule: ${rule})` } };
  }
  return {
    ...loaded,
    trust: {
      ...trust,
      keyAllowed: false,
      keyAllowedFor: null,
      reason:
        'pi does not trust this project, and its .pi/memory.json chooses the memory server or key variable; the API key is withheld ' +
        '(rule: pi project trust). Trust the project in pi (it asks at start-up; defaultProjectTrust in pi settings), or move the setting to ~/.pi/agent/memory.json',
    },
  };
};
