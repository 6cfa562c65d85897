/**
 * Round 13: a password said or written in another language than English was kept whole: `mein
 * Passwort ist x`, `Passwort: x`, `le mot de passe est x`, `la contraseña es x`, `a senha é x`,
 * `la password è x`, `wachtwoord: x`, `hasło: x`, `şifre: x`, `пароль: x`, `密码是x`,
 * `パスワードはx`, `비밀번호: x` (the prose and line rules read English words and copulas only).
 * Each through `redact` and a run's `cleanText`, and the real `memory_retain` (real queue,
 * embedded server); what only names a password (`Passwort vergessen?`, `Passwortmanager`, an
 * article or a negation after the copula) stays as written.
 */
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../src/effects/session/retainProjection.js';
import { describeRetainedPastes, itHidesEachPaste, type Paste } from '../helpers/redactedPastes.js';

const S = 'Tr0ub4dor-Qx7';

const PASTES: readonly Paste[] = [
  ['german prose', `Mein Passwort ist ${S}. Bitte nicht teilen.`, S, 'Bitte nicht teilen.'],
  ['german line', `Benutzer: ann\nPasswort: ${S}\nServer: db1`, S, 'Server: db1'],
  ['german Kennwort', `das Kennwort = ${S} für den Router`, S, 'für den Router'],
  ['french prose', `le mot de passe est ${S} pour le wifi`, S, 'pour le wifi'],
  ['french line', `mot de passe : ${S}`, S, 'mot de passe :'],
  ['spanish prose', `la contraseña es: ${S} y el usuario es ann`, S, 'y el usuario es ann'],
  ['portuguese prose', `a senha é ${S}, não compartilhe`, S, 'não compartilhe'],
  ['italian prose', `la password è ${S} per il server`, S, 'per il server'],
  ['dutch line', `wachtwoord: ${S}`, S, 'wachtwoord:'],
  ['polish line', `hasło: ${S}`, S, 'hasło:'],
  ['turkish line', `şifre: ${S}`, S, 'şifre:'],
  ['swedish line', `lösenord: ${S}`, S, 'lösenord:'],
  ['russian line', `логин: ann, пароль: ${S}, хост: db1`, S, 'хост: db1'],
  ['chinese prose', `数据库密码是${S}，请保管好`, S, '请保管好'],
  ['chinese fullwidth colon', `密码：${S}`, S, '密码：'],
  ['japanese prose', `パスワードは「${S} 2」です`, [S, `${S} 2`], 'です'],
  ['korean line', `비밀번호: ${S}`, S, '비밀번호:'],
  ['german quoted words', `Passwort: "zwei ${S} Wörter"`, [S, 'zwei', 'Wörter'], 'Passwort:'],
];

describe('a password in another language (round 13)', () => {
  itHidesEachPaste(PASTES);

  it('what only names a password stays as written', () => {
    for (const text of [
      'Passwort vergessen?',
      'Passwortmanager: KeePass',
      'Das Passwort ist nicht sicher genug.',
      'le mot de passe est le nom de mon chien',
      'mot de passe oublié',
      'la contraseña es la misma',
      'пароль не подходит',
      '密码错误',
      'パスワードを忘れた',
      'Passwort ändern',
    ]) {
      expect(cleanText(text), text).toBe(text);
    }
  });
});

describeRetainedPastes(PASTES);
