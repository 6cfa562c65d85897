/**
 * Round 13: keys printed bare (`echo $TAVILY_API_KEY`, an error quoting the key, a config dump
 * without names), where no name says they are secrets, were kept whole for 32 providers a coding
 * agent's user holds keys for: AI APIs (Replicate, Perplexity, Tavily, NVIDIA, Fireworks,
 * LangSmith), observability (Grafana, Sentry, PostHog), databases and hosting (Supabase,
 * PlanetScale, Heroku, Fly, Netlify, Vercel, Render), registries (RubyGems, NuGet), and Slack app,
 * Square, Facebook, Google refresh, Notion, Figma, Postman, Alibaba, Airtable, Atlassian, Mapbox,
 * Contentful, Firebase and 1Password service-account tokens. Each through `redact` and a run's
 * `cleanText`, and the real `memory_retain` (real queue, embedded server).
 */
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../src/effects/session/retainProjection.js';
import { describeRetainedPastes, itHidesEachPaste, type Paste } from '../helpers/redactedPastes.js';

const r = (n: number, alphabet = 'aB3dE5gH7jK9mN1pQ2sT4vW6yZ8'): string => alphabet.repeat(Math.ceil(n / alphabet.length)).slice(0, n);
const HEX = 'a1b2c3d4e5f60789';

const KEYS: readonly (readonly [string, string])[] = [
  ['slack app token', `xapp-1-A0123456789-1234567890123-${r(64, 'a1b2c3d4')}`],
  ['grafana service account', `glsa_${r(32)}_${r(8, 'a1b2c3d4')}`],
  ['grafana cloud', `glc_${r(40)}`],
  ['sentry org token', `sntrys_${r(60)}`],
  ['sentry user token', `sntryu_${r(64, HEX)}`],
  ['replicate', `r8_${r(37)}`],
  ['perplexity', `pplx-${r(48)}`],
  ['tavily', `tvly-dev-${r(32)}`],
  ['nvidia', `nvapi-${r(64)}`],
  ['fireworks', `fw_${r(24)}`],
  ['square access', `sq0atp-${r(22)}`],
  ['square secret', `sq0csp-${r(43)}`],
  ['facebook', `EAACEdEose0cBA${r(120)}`],
  ['google refresh', `1//0g${r(60)}`],
  ['langsmith', `lsv2_pt_${r(32, HEX)}_${r(10, HEX)}`],
  ['posthog personal', `phx_${r(43)}`],
  ['notion', `secret_${r(43)}`],
  ['notion new', `ntn_${r(46)}`],
  ['figma', `figd_${r(40)}`],
  ['supabase personal', `sbp_${r(40, HEX)}`],
  ['supabase secret', `sb_secret_${r(32)}`],
  ['postman', `PMAK-${r(24, HEX)}-${r(34, HEX)}`],
  ['planetscale', `pscale_tkn_${r(43)}`],
  ['rubygems', `rubygems_${r(48, HEX)}`],
  ['nuget', `oy2${r(43, 'a1b2c3d4e5f6g7h8')}`],
  ['alibaba', `LTAI${r(20)}`],
  ['airtable', `pat${r(14)}.${r(64, HEX)}`],
  ['heroku', `HRKU-${r(60)}`],
  ['fly', `FlyV1 fm2_${r(80)}`],
  ['netlify', `nfp_${r(36)}`],
  ['vercel', `vcp_${r(56)}`],
  ['atlassian connect', `ATCTT3xFfGN0${r(40)}`],
  ['mapbox secret', `sk.eyJ1Ijoi${r(40)}.${r(22)}`],
  ['contentful', `CFPAT-${r(43)}`],
  ['firebase server key', `AAAA${r(7)}:APA91b${r(134)}`],
  ['render', `rnd_${r(32)}`],
  ['1password service account', `ops_eyJ${r(200)}`],
];

const PASTES: readonly Paste[] = KEYS.map(([name, key]) => [name, `$ echo $KEY\n${key}\n$ next`, key.slice(-20), '$ next']);

describe('bare keys of more providers (round 13)', () => {
  itHidesEachPaste(PASTES);

  it('words that only start the same stay as written', () => {
    for (const text of [
      'patternMatchingIsFun.config',
      'the path_to_file and pattern',
      'the secret_key_base setting',
      'fw_version 1.2',
      'r8_short',
      'EAA is an abbreviation',
      'sk.eyJ is the start of a mapbox key',
      'oy2 and LTAI are prefixes',
      'vcp_ and rnd_ are prefixes',
    ]) {
      expect(cleanText(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
