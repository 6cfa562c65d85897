/**
 * Attack (eighth session): secrets written the way people paste them. The shape rules knew
 * `scheme://user:pass@host`, `"password": "x"`, `--password=x` and `PASSWORD=x`; a pasted Redis
 * URL with no user (`redis://:pw@host`), JSON escaped inside a string (kubectl's
 * last-applied-configuration, a JSON log line quoted in another), a CLI flag with a space
 * (`--password x`, `--token x`), `curl -u user:pass`, a Maven `<password>` element, a quoted
 * passphrase with spaces (`PASSWORD="correct horse battery staple"`: only its first word was
 * hidden), a Docker Hub token, a Google OAuth access token and a Discord webhook all kept the
 * secret. Each goes through the redactor, then the real `memory_retain` tool into the real queue
 * journal and the embedded server: neither holds it, and the text around it survives.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, type Paste } from '../helpers/redactedPastes.js';

// Built at run time so the fixtures themselves do not look like committed secrets.
const rep = (s: string, n: number) => s.repeat(n);

/** [name, pasted text, the secret, a part of the text that must stay readable]. */
const PASTES: readonly Paste[] = [
  // Already hidden before this round: kept here so the round's changes cannot lose them.
  ['.env paste', `OPENAI_API_KEY=sk-${rep('Ab3x', 10)}\nSTRIPE_SECRET=whsec_${rep('Q7', 12)}\nPORT=8080`, `sk-${rep('Ab3x', 10)}`, 'PORT=8080'],
  ['URL with user and password in a stack trace', 'Error: connect ECONNREFUSED mysql://root:Sup3rS3cretPw@10.0.0.1:3306\n    at Object.<anonymous> (/app/db.js:10:5)', 'Sup3rS3cretPw', '/app/db.js:10:5'],
  ['JSON config', '{"aws_secret_access_key": "wJalrXUtnFEMIK7MDENGbPxRfiCY", "region": "eu-west-1"}', 'wJalrXUtnFEMIK7MDENGbPxRfiCY', 'eu-west-1'],
  ['URL query key', 'GET https://api.example.com/v1?api_key=abcd1234efgh5678&page=2', 'abcd1234efgh5678', 'page=2'],
  // Kept the secret before this round.
  ['Redis URL with no user', 'REDIS_URL is redis://:myRedisPassw0rd@cache.internal:6379/0', 'myRedisPassw0rd', 'cache.internal:6379/0'],
  ['JSON escaped inside a string (kubectl last-applied-configuration)', 'kubectl.kubernetes.io/last-applied-configuration: "{\\"apiVersion\\":\\"v1\\",\\"stringData\\":{\\"password\\":\\"kube-Pa55word-9\\"},\\"kind\\":\\"Secret\\"}"', 'kube-Pa55word-9', '\\"kind\\":\\"Secret\\"'],
  ['JSON log line quoted in another', '{"msg":"login failed","body":"{\\"user\\":\\"ann\\",\\"client_secret\\":\\"cs-77Hq2LmZ\\"}"}', 'cs-77Hq2LmZ', 'login failed'],
  ['CLI flag with a space', 'mysql -h db --user app --password hunter2hunter2 appdb', 'hunter2hunter2', 'appdb'],
  ['CLI token flag', 'gh auth login --with-token --token t0ken-Value-123 --hostname x', 't0ken-Value-123', '--hostname x'],
  ['CLI flag with a quoted value', `vault login --api-key "AbC${rep('9x', 8)}" -v`, `AbC${rep('9x', 8)}`, '-v'],
  ['curl -u and a password', 'curl -u deploy:s3cretDeployPw https://ci.example.com/job', 's3cretDeployPw', 'https://ci.example.com/job'],
  ['curl --user and a password', "curl --user 'deploy:An0ther-Pw' https://x.example", 'An0ther-Pw', 'https://x.example'],
  ['Maven settings.xml', '<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <password>mvn-Pa55-word</password>\n</server>', 'mvn-Pa55-word', '<id>nexus</id>'],
  ['XML element named like a key', '<apiKey>xmlK3yValue99</apiKey><timeout>30</timeout>', 'xmlK3yValue99', '<timeout>30</timeout>'],
  ['quoted passphrase with spaces (.env)', 'DB_PASSWORD="correct horse battery staple"\nDB_HOST=db', 'horse battery staple', 'DB_HOST=db'],
  ['quoted passphrase with spaces (YAML)', "password: 'tr0ub4dor and 3 more words'\nuser: ann", 'and 3 more words', 'user: ann'],
  ['Docker Hub token', `docker login -u ann -p dckr_pat_${rep('Xy9_', 7)}`, `dckr_pat_${rep('Xy9_', 7)}`, 'docker login'],
  ['Google OAuth access token', `token is ya29.a0Af${rep('H6sM', 10)}`, `a0Af${rep('H6sM', 10)}`, 'token is'],
  ['Discord webhook', `https://discord.com/api/webhooks/123456789012345678/${rep('aB3-', 17)}`, rep('aB3-', 17), 'discord.com'],
];

describe('secrets as people paste them are redacted', () => {
  it.each(PASTES)('%s: redact hides it, keeps the rest, and a second pass changes nothing', (_name, text, secret, kept) => {
    expectPasteRedacted(text, secret, kept);
  });

  it('look-alikes stay readable', () => {
    for (const text of [
      'git push -u origin main',
      'docker run -u 1000:1000 node',
      'pass --password-file ~/.pw to it',
      'use --token-file path/to/file',
      '<password-policy>strict</password-policy>',
      'redis://cache.internal:6379/0',
      'the password field is required',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
