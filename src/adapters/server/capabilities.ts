/**
 * What the connected server can do, from `GET /version` (api_version + feature flags), with
 * route probing as a fallback when `/version` is missing, cached per base URL.
 *
 * Requests are checked against it before they are sent: a request that uses an option the
 * server lacks fails with `unsupportedCapability` and is never sent in an altered shape.
 */
import { sanitizeMemoryText } from '../../config/memoryText.js';
import type {
  Capabilities,
  CapabilityName,
  RecallRequest,
  ReflectRequest,
  RetainRequest,
  ServerFailure,
  TagGroup,
  VersionInfo,
} from '../../effects/ports/memoryServer.js';

/** The oldest server automatic retain supports: append retain at 0.8 (contract section 9). */
export const SERVER_FLOOR = '0.8.0';
export const FLOOR_REMEDIATION = 'upgrade the server to 0.8 or later';

/** How long a detection stays valid; a server upgrade is noticed within this time. */
const CAPABILITY_TTL_MS = 5 * 60_000;

type Version = readonly [number, number, number];

/** `0.9.1`, `v0.10.0-rc1` → [0, 9, 1]; undefined when there is no leading `x.y`. */
export const parseVersion = (text: string): Version | undefined => {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (m === null) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
};

/** True when `version` is at least `minimum` (both `x.y.z`); unknown versions are never at least. */
export const atLeast = (version: string, minimum: string): boolean => {
  const a = parseVersion(version);
  const b = parseVersion(minimum);
  if (a === undefined || b === undefined) return false;
  for (let i = 0; i < 3; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
};

/** The first version that has each feature (hindsight-api.md 7.2). */
const SINCE: Readonly<Record<CapabilityName, string>> = {
  append: SERVER_FLOOR,
  exactTags: '0.8.2',
  operationId: '0.8.6',
  tagGroups: '0.4.18',
  sharedScope: '0.8.3',
  preferObservations: '0.8.4',
  trace: '0.4.0',
  sourceFacts: '0.4.13',
  chunks: '0.4.0',
  responseSchema: '0.4.0',
  toolCalls: '0.4.0',
  reflectFacts: '0.4.0',
  mentalModels: '0.4.0',
  knowledge: '0.9.0',
  bankConfig: '0.4.22',
  bankStats: '0.4.0',
  listBanksQuery: '0.10.0',
  profile: '0.0.0',
};

/** What a probe of the routes found, for servers without a usable `/version`. */
export interface ProbeFindings {
  readonly knowledge?: boolean;
}

/**
 * Capabilities from what `/version` said (or nothing), the embedded marker and probes.
 * The embedded server answers response schemas with a capability error (no LLM), so they are off there.
 */
/** Longest version string kept: a version is a short token (`0.9.1`), shown in status and doctor. */
const VERSION_MAX = 64;

/**
 * The server's version as shown to the person and the model (status, doctor, tool errors): one
 * line, cleaned like memory text (a hostile server's invisible instructions or bidi overrides
 * in it are removed), clipped.
 */
const versionText = (raw: string): string => {
  const clean = sanitizeMemoryText(raw).text.replace(/\s+/g, ' ').trim();
  if (clean === '') return 'unknown';
  return clean.length > VERSION_MAX ? `${clean.slice(0, VERSION_MAX)}…` : clean;
};

export const deriveCapabilities = (version: VersionInfo | undefined, embeddedHeader: boolean, probes: ProbeFindings = {}): Capabilities => {
  const apiVersion = version === undefined ? 'unknown' : versionText(version.api_version);
  const flags = version?.features ?? {};
  const embedded = embeddedHeader || flags.embedded === true;
  const since = (name: CapabilityName): boolean => atLeast(apiVersion, SINCE[name]);
  const known = parseVersion(apiVersion) !== undefined;
  return {
    apiVersion,
    embedded,
    features: {
      append: since('append'),
      exactTags: since('exactTags'),
      operationId: since('operationId'),
      tagGroups: since('tagGroups'),
      sharedScope: since('sharedScope'),
      preferObservations: since('preferObservations'),
      trace: since('trace'),
      sourceFacts: since('sourceFacts'),
      chunks: since('chunks'),
      responseSchema: since('responseSchema') && !embedded,
      toolCalls: since('toolCalls'),
      reflectFacts: since('reflectFacts'),
      mentalModels: since('mentalModels'),
      knowledge: known ? since('knowledge') : probes.knowledge === true,
      bankConfig: flags.bank_config_api ?? since('bankConfig'),
      bankStats: since('bankStats'),
      // The embedded server honours `q` on the bank list (it emulates the 0.10 list).
      listBanksQuery: since('listBanksQuery') || embedded,
      profile: known ? !atLeast(apiVersion, '0.10.0') : true,
    },
    serverFlags: flags,
  };
};

const LABELS: Readonly<Record<CapabilityName, string>> = {
  append: 'append retain (update_mode "append")',
  exactTags: 'tags_match "exact"',
  operationId: 'idempotent retain (operation_id)',
  tagGroups: 'tag_groups',
  sharedScope: 'observation_scopes "shared"',
  preferObservations: 'prefer_observations / min_scores',
  trace: 'recall trace',
  sourceFacts: 'recall source facts',
  chunks: 'recall chunks',
  responseSchema: 'reflect response_schema',
  toolCalls: 'reflect tool-call trace',
  reflectFacts: 'reflect facts (include.facts)',
  mentalModels: 'mental models',
  knowledge: 'knowledge pages',
  bankConfig: 'bank config',
  bankStats: 'bank stats',
  listBanksQuery: 'bank list filtering (q)',
  profile: 'bank profile',
};

export const capabilityLabel = (name: CapabilityName): string => LABELS[name];

/** The failure for a missing capability, with a remediation a user can act on. */
export const unsupported = (name: CapabilityName, caps: Capabilities): ServerFailure => {
  const minimum = SINCE[name];
  const remediation =
    name === 'append'
      ? FLOOR_REMEDIATION
      : caps.embedded && atLeast(caps.apiVersion, minimum)
        ? `the embedded server does not offer it (it runs without an LLM); connect a Hindsight server (set baseUrl) or call without ${LABELS[name]}`
        : `upgrade the server to ${minimum.replace(/\.0$/, '')} or later, or call without ${LABELS[name]}`;
  return {
    _tag: 'unsupportedCapability',
    feature: LABELS[name],
    ...(caps.apiVersion === 'unknown' ? {} : { serverVersion: caps.apiVersion }),
    remediation,
  };
};

/** The first capability in `needed` the server lacks, as a failure; undefined when all are there. */
export const missing = (needed: readonly CapabilityName[], caps: Capabilities): ServerFailure | undefined => {
  const gap = needed.find((name) => !caps.features[name]);
  return gap === undefined ? undefined : unsupported(gap, caps);
};

/** The server's floor for automatic retain; undefined when it is met. */
export const floorFailure = (caps: Capabilities): ServerFailure | undefined =>
  caps.features.append ? undefined : unsupported('append', caps);

const groupsUseExact = (groups: readonly TagGroup[]): boolean =>
  groups.some((group) => {
    if ('tags' in group) return group.match === 'exact';
    if ('and' in group) return groupsUseExact(group.and);
    if ('or' in group) return groupsUseExact(group.or);
    return groupsUseExact([group.not]);
  });

const tagNeeds = (req: { tags_match?: string; tag_groups?: readonly TagGroup[] | null }): CapabilityName[] => {
  const needs: CapabilityName[] = [];
  if (req.tags_match === 'exact') needs.push('exactTags');
  if (req.tag_groups !== undefined && req.tag_groups !== null) {
    needs.push('tagGroups');
    if (groupsUseExact(req.tag_groups)) needs.push('exactTags');
  }
  return needs;
};

export const retainNeeds = (req: RetainRequest): CapabilityName[] => {
  // The floor (append) first, so a server below it is reported with the floor's remediation.
  const needs = new Set<CapabilityName>();
  if (req.items.some((item) => item.update_mode === 'append')) needs.add('append');
  if (req.operation_id !== undefined) needs.add('operationId');
  if (req.items.some((item) => item.observation_scopes === 'shared')) needs.add('sharedScope');
  return [...needs];
};

export const recallNeeds = (req: RecallRequest): CapabilityName[] => {
  const needs = tagNeeds(req);
  if (req.trace === true) needs.push('trace');
  if (req.include?.source_facts !== undefined && req.include.source_facts !== null) needs.push('sourceFacts');
  if (req.include?.chunks !== undefined && req.include.chunks !== null) needs.push('chunks');
  if (req.prefer_observations !== undefined || req.min_scores !== undefined) needs.push('preferObservations');
  return needs;
};

export const reflectNeeds = (req: ReflectRequest): CapabilityName[] => {
  const needs = tagNeeds(req);
  if (req.response_schema !== undefined) needs.push('responseSchema');
  if (req.include?.tool_calls !== undefined && req.include.tool_calls !== null) needs.push('toolCalls');
  if (req.include?.facts !== undefined && req.include.facts !== null) needs.push('reflectFacts');
  return needs;
};

/** Request body fields each capability puts on the wire, to read `X-Ignored-Params` against. */
export const FIELD_CAPABILITY: Readonly<Record<string, CapabilityName>> = {
  update_mode: 'append',
  operation_id: 'operationId',
  tag_groups: 'tagGroups',
  prefer_observations: 'preferObservations',
  min_scores: 'preferObservations',
  response_schema: 'responseSchema',
};

interface CacheEntry {
  readonly caps: Capabilities;
  readonly at: number;
}

const cache = new Map<string, CacheEntry>();

export const cachedCapabilities = (baseUrl: string, now: number): Capabilities | undefined => {
  const entry = cache.get(baseUrl);
  if (entry === undefined || now - entry.at > CAPABILITY_TTL_MS) return undefined;
  return entry.caps;
};

export const rememberCapabilities = (baseUrl: string, caps: Capabilities, now: number): void => {
  cache.set(baseUrl, { caps, at: now });
};

/** Marks a capability as absent after the server ignored its field, so the next call fails before sending. */
export const markMissing = (baseUrl: string, name: CapabilityName): void => {
  const entry = cache.get(baseUrl);
  if (entry === undefined) return;
  cache.set(baseUrl, { at: entry.at, caps: { ...entry.caps, features: { ...entry.caps.features, [name]: false } } });
};

/** Forgets what was detected for `baseUrl` (the server was upgraded or replaced). */
export const forgetCapabilities = (baseUrl: string): void => {
  cache.delete(baseUrl);
};
