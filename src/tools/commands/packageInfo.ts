/** This package's name and version, for the doctor and the user agent; read once, never thrown. */
import { createRequire } from 'node:module';
import { isRecord } from '../../codecs/codecs.js';

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
  readonly userAgent: string;
}

const read = (): PackageInfo => {
  try {
    // Self-reference through the package's own `exports` ("./package.json"): works from src and dist.
    const pkg: unknown = createRequire(import.meta.url)('agent-memory/package.json');
    const fields = isRecord(pkg) ? pkg : {};
    const name = typeof fields['name'] === 'string' ? fields['name'] : 'agent-memory';
    const version = typeof fields['version'] === 'string' ? fields['version'] : 'unknown';
    return { name, version, userAgent: `${name}/${version}` };
  } catch {
    return { name: 'agent-memory', version: 'unknown', userAgent: 'agent-memory/unknown' };
  }
};

let cached: PackageInfo | undefined;

export const packageInfo = (): PackageInfo => (cached ??= read());

/** The support policy of the 1.0 line (contract section 9), with Node as package.json's `engines` enforces it. */
export const SUPPORT_POLICY = {
  node: '>=20.19',
  npm: '>=10',
  typebox: '>=1.1.24 <2',
  memoryServerClient: 'Hindsight HTTP API client ^0.9.0 (built in)',
  memoryServer: 'Hindsight 0.8 or later with append update_mode support; advanced tools are capability-gated',
} as const;
