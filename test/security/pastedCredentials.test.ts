/**
 * Round 12: secrets written the ways people paste them. A sweep of 93 pastes (env dumps,
 * `.npmrc`, `docker login`, kubeconfig, cloud CLI output, JWTs, connection strings, private
 * keys split over lines) through `redact` and the run's `cleanText` kept these whole:
 * - Go's `token := "x"`: `:=` was read as `:` and its `=` taken for the value;
 * - `DB_PW=x` (`_PW`, beside `_PWD` and `_PASS`);
 * - .NET's appSettings `<add key="ApiSecret" value="x" />`;
 * - the AWS CLI's `--output table` (`|  SecretAccessKey |  x  |`);
 * - `vault operator init`'s `Unseal Key 1: x`;
 * - `echo x | docker login --password-stdin`.
 * Each through `redact`, and the real `memory_retain` (real queue, embedded server): the journal
 * and the server hold the note and no part of its secret.
 */
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../src/effects/session/retainProjection.js';
import { describeRetainedPastes, itHidesEachPaste, type Paste } from '../helpers/redactedPastes.js';

const S = 'Zq8vR2mXk4Lw9Tn3Yp7Hd1Fs6Gj0Bc5Q';

const PASTES: readonly Paste[] = [
  ['go short assignment', `apiToken := "${S}"\nclient := api.New(apiToken)`, S, 'client := api.New(apiToken)'],
  ['go short assignment, password', `password := "${S}"`, S, 'password :='],
  ['env _PW', `DB_HOST=db\nDB_PW=${S}\nDB_USER=app`, S, 'DB_USER=app'],
  ['appSettings', `<appSettings>\n  <add key="ApiSecret" value="${S}" />\n  <add key="Region" value="eu-west-1" />\n</appSettings>`, S, 'value="eu-west-1"'],
  ['aws cli table', `|  AccessKeyId     |  ASIA...  |\n|  SecretAccessKey |  wJalrXUtnFEMI/K7MDENG/${S}  |\n|  Expiration      |  2026-11-28T23:00:00Z |`, S, 'Expiration'],
  ['vault operator init', `Unseal Key 1: ${S}+abc=\nUnseal Key 2: ${S.split('').reverse().join('')}=\n\nVault initialized with 5 key shares`, [S, S.split('').reverse().join('')], 'Vault initialized'],
  ['echo to docker login', `echo ${S} | docker login --password-stdin -u ann ghcr.io`, S, 'docker login --password-stdin'],
  ['echo quoted to login', `echo -n '${S}' | helm registry login --password-stdin -u ann reg`, S, 'helm registry login'],
];

describe('credentials as people paste them (round 12)', () => {
  itHidesEachPaste(PASTES);

  it('what only looks like them stays as written', () => {
    for (const text of [
      'if err := run(); err != nil {',
      '| name | type | required |',
      '| token | string | yes |',
      '<add key="Region" value="eu-west-1" />',
      'echo hello | grep h',
      'echo $CR_PAT | docker login ghcr.io -u ann --password-stdin',
      'Unseal Key 1: (hidden)',
    ]) {
      expect(cleanText(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
