/**
 * Attack (round 8): a password in words said mid-line. "my password is correct horse battery
 * staple and I use it everywhere" hid `correct` and kept `horse battery staple`; a quoted one
 * ("my passphrase is 'open sesame now'") kept all but its first word; "the password for the
 * wifi is tulip garden 42" hid nothing. Each through `redact`, then the real `memory_retain` into
 * the real queue journal and the embedded server. The sentence after the password stays.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { describeRetainedPastes, expectPasteRedacted, withoutMachineFields, type Paste } from '../helpers/redactedPastes.js';

const PASTES: readonly Paste[] = [
  ['a passphrase in words mid-line', 'my password is correct horse battery staple and I use it everywhere', ['correct', 'horse', 'battery', 'staple'], 'and I use it everywhere'],
  ['a passphrase closed by a comma', 'The vault passphrase is plum orchid 1987 tango, rotate it monthly.', ['plum', 'orchid', '1987', 'tango'], ', rotate it monthly.'],
  ['a quoted passphrase mid-line', "my passphrase is 'opal sesame wide now' so keep it safe", ['opal', 'sesame', 'wide'], 'so keep it safe'],
  ['a curly-quoted passphrase', 'the password was \u201cblue monkey dishwasher\u201d until Friday', ['blue', 'monkey', 'dishwasher'], 'until Friday'],
  ['a password for something', 'The password for the staging wifi is tulip garden 4711, ask Ann.', ['tulip', 'garden', '4711'], 'ask Ann.'],
  ['a password after a colon, ended by a full stop', 'Reminder: new password: amber falcon ridge. Then log in.', ['amber', 'falcon', 'ridge'], 'Then log in.'],
  ['a pin said in words', 'the pin code is nine four four one when the door sticks', ['nine', 'four four', 'one'], 'when the door sticks'],
];

describe('a password in words mid-line', () => {
  it.each(PASTES)('%s: redact hides every word, keeps the sentence after, and a second pass changes nothing', (_name, text, parts, kept) => {
    expectPasteRedacted(text, parts, kept);
  });

  it('the words after it stay when a clause word or punctuation ends it; look-alikes stay', () => {
    expect(redact('Set the Password: see the vault entry')).toBe('Set the Password: [REDACTED] the vault entry');
    expect(redact('my password is hunter2.')).toBe('my password is [REDACTED].');
    expect(redact('password is x and password is y z')).toBe('password is [REDACTED] and password is [REDACTED]');
    // At most eight words are taken: a value is not a paragraph.
    expect(redact('the password is: one two three four five six seven eight nine ten')).toBe('the password is: [REDACTED] nine ten');
    // A first word that starts a sentence is hidden alone (recall over precision), not the sentence.
    expect(redact('a password for every account is a good idea')).toBe('a password for every account is [REDACTED] good idea');
    for (const text of ['the password reset flow is broken', 'Passwords are hashed with bcrypt', 'the password field is required', 'mysql --password=s3cret --host db']) {
      expect(redact(text), text).toBe(text.startsWith('mysql') ? 'mysql --password=[REDACTED] --host db' : text);
    }
  });
});

describe('the journal check reads every text field', () => {
  it('blanks a job id that holds a secret\'s digits by chance, and keeps them where the content says them', () => {
    const line = '{"v":1,"seq":17,"type":"retain.enqueued","payload":{"jobs":[{"jobId":"5e47118e-9a04-5aca-ad4b-c73128c94d25","item":{"content":"wifi is 4711","context":"c 4711"},"idempotencyKey":"5e47118e-9a04"}],"at":1795915947118},"checksum":"24ea62b1913b9c0d"}';
    const out = withoutMachineFields(line);
    expect(out).toContain('"content":"wifi is 4711"');
    expect(out).toContain('"context":"c 4711"');
    expect(out.replace(/"(?:content|context)":"[^"]*"/g, '')).not.toContain('4711');
  });
});

describeRetainedPastes(PASTES);
