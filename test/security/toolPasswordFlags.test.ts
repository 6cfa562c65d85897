/**
 * Round 10: passwords given by a short flag of a tool that takes one so, as a command and its
 * output show them in a session: `mysql -pS3cret`, `redis-cli -a S3cret`, `docker login -p
 * S3cret`, `openssl enc -k S3cret` were kept (only `sshpass -p` and long `--password` flags
 * were known). `-p` alone means other things (`mkdir -p`, `ssh -p 22`, `docker run -p 80:80`),
 * so the rule knows the tool: the words of each line are read in order, and a `;`, `&&`, `|`
 * or a line break ends the command. The real redactor, and the real `memory_retain` into the
 * queue journal.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { startHarness } from '../tools/harness.js';

const HIDDEN: readonly (readonly [string, string])[] = [
  ['mysql -u root -pS3cretPass9 shop', 'mysql -u root -p[REDACTED] shop'],
  ['/usr/bin/mysqldump -h db -pS3cretPass9 --all-databases > all.sql', '/usr/bin/mysqldump -h db -p[REDACTED] --all-databases > all.sql'],
  ['mariadb -pS3cretPass9; ls -pal', 'mariadb -p[REDACTED]; ls -pal'],
  ['redis-cli -h cache -a S3cretPass9 ping', 'redis-cli -h cache -a [REDACTED] ping'],
  ['docker login -u ann -p S3cretPass9 registry.example.com', 'docker login -u ann -p [REDACTED] registry.example.com'],
  ['podman login -p S3cretPass9 quay.io', 'podman login -p [REDACTED] quay.io'],
  ['openssl enc -aes-256-cbc -k S3cretPass9 -in notes.txt', 'openssl enc -aes-256-cbc -k [REDACTED] -in notes.txt'],
];

const KEPT = [
  'mysql -u root -p shop',
  'mkdir -p /tmp/x && ssh -p 22 host',
  'docker run -p 8080:80 nginx',
  'cp -pR a b; mysql -u root -p',
  'redis-cli -a',
  'the login -p flag of the old tool',
  'mysql -e "select 1"\ncp -pR src dst',
];

describe('passwords given by a tool’s short flag', () => {
  it.each(HIDDEN)('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
    expect(redact(redact(text))).toBe(expected);
  });

  it.each(KEPT)('kept: %s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('never reach the queue journal through memory_retain', async () => {
    const h = await startHarness({ serverDown: true });
    try {
      for (const [text] of HIDDEN) await h.run('memory_retain', { content: `ran: ${text}`, context: 'a command' });
      const journal = readFileSync(h.queuePath, 'utf8');
      expect(journal).toContain('ran: mysql -u root -p[REDACTED] shop');
      expect(journal).not.toContain('S3cretPass9');
    } finally {
      await h.close();
    }
  }, 60_000);
});
