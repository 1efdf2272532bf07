import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { shaCryptChecksum } from './sha-crypt.algorithm.js';
import { parseShaCryptHash, verifyShaCryptHash, type ShaCryptFormat } from './sha-crypt.verifier.js';

const verify = (password: string, hash: string, format: ShaCryptFormat) => verifyShaCryptHash(password, parseShaCryptHash(hash, format));

/**
 * The test vectors published with the specification, Ulrich Drepper, "Unix crypt using SHA-256 and
 * SHA-512" (https://www.akkadia.org/drepper/SHA-crypt.txt, "Test vectors" section; also in glibc's
 * crypt/sha256c-test.c and sha512c-test.c and passlib's test_handlers.py). Each row: the setting, the
 * password, and the expected crypt() output. The setting shows the spec's rules at work: salts longer
 * than 16 characters are truncated and rounds below 1000 are raised to 1000.
 */
const SPEC_VECTORS: Array<[ShaCryptFormat, string, string, string]> = [
  ['sha256-crypt', '$5$saltstring', 'Hello world!', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
  ['sha256-crypt', '$5$rounds=10000$saltstringsaltstring', 'Hello world!', '$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA'],
  ['sha256-crypt', '$5$rounds=5000$toolongsaltstring', 'This is just a test', '$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5'],
  [
    'sha256-crypt',
    '$5$rounds=1400$anotherlongsaltstring',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
    '$5$rounds=1400$anotherlongsalts$Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1',
  ],
  [
    'sha256-crypt',
    '$5$rounds=77777$short',
    'we have a short salt string but not a short password',
    '$5$rounds=77777$short$JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/',
  ],
  ['sha256-crypt', '$5$rounds=123456$asaltof16chars..', 'a short string', '$5$rounds=123456$asaltof16chars..$gP3VQ/6X7UUEW3HkBn2w1/Ptq2jxPyzV/cZKmF/wJvD'],
  [
    'sha256-crypt',
    '$5$rounds=10$roundstoolow',
    'the minimum number is still observed',
    '$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC',
  ],
  ['sha512-crypt', '$6$saltstring', 'Hello world!', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  [
    'sha512-crypt',
    '$6$rounds=10000$saltstringsaltstring',
    'Hello world!',
    '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
  ],
  [
    'sha512-crypt',
    '$6$rounds=5000$toolongsaltstring',
    'This is just a test',
    '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0',
  ],
  [
    'sha512-crypt',
    '$6$rounds=1400$anotherlongsaltstring',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
    '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1',
  ],
  [
    'sha512-crypt',
    '$6$rounds=77777$short',
    'we have a short salt string but not a short password',
    '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0',
  ],
  [
    'sha512-crypt',
    '$6$rounds=123456$asaltof16chars..',
    'a short string',
    '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1',
  ],
  [
    'sha512-crypt',
    '$6$rounds=10$roundstoolow',
    'the minimum number is still observed',
    '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.',
  ],
];

describe('SHA-crypt verifier', () => {
  for (const [format, setting, password, expected] of SPEC_VECTORS) {
    it(`matches the spec's vector for ${setting}`, async () => {
      assert.equal(await verify(password, expected, format), true);
      assert.equal(await verify(`${password}.`, expected, format), false);
      if (expected.startsWith(setting)) return;
      // The setting as written in the spec (salt over 16 characters, rounds=10) gives the same checksum.
      const [, , roundsOrSalt, maybeSalt] = setting.split('$');
      const rounds = roundsOrSalt!.startsWith('rounds=') ? Number(roundsOrSalt!.slice(7)) : 5000;
      const salt = (maybeSalt ?? roundsOrSalt!).slice(0, 16);
      const digest = format === 'sha256-crypt' ? 'sha256' : 'sha512';
      assert.equal(await shaCryptChecksum(Buffer.from(password), Buffer.from(salt), rounds, digest), expected.slice(expected.lastIndexOf('$') + 1));
    });
  }

  // passlib's known_correct_hashes for sha256_crypt / sha512_crypt (passlib/tests/test_handlers.py).
  const passlibVectors: Array<[ShaCryptFormat, string, string]> = [
    ['sha256-crypt', 'with unic\u00D6de', '$5$rounds=1000$IbG0EuGQXw5EkMdP$LQ5AfPf13KufFsKtmazqnzSGZ4pxtUNw3woQ.ELRDF4'],
    ['sha256-crypt', 'test', '$5$rounds=11858$WH1ABM5sKhxbkgCK$aTQsjPkz0rBsH3lQlJxw9HDTDXPKBxC0LlVeV69P.t1'],
    ['sha512-crypt', '', '$6$rounds=11021$KsvQipYPWpr93wWP$v7xjI4X6vyVptJjB1Y02vZC5SaSijBkGmq1uJhPr3cvqvvkd42Xvo48yLVPFt8dvhCsnlUgpX.//Cxn91H4qy1'],
    [
      'sha512-crypt',
      '4lpHa N|_|M3r1K W/ Cur5Es: #$%(*)(*%#',
      '$6$rounds=11065$5KXQoE1bztkY5IZr$Jf6krQSUKKOlKca4hSW07MSerFFzVIZt/N3rOTsUgKqp7cUdHrwV8MoIVNCk9q9WL3ZRMsdbwNXpVk0gVxKtz1',
    ],
  ];
  for (const [format, password, hash] of passlibVectors) {
    it(`matches passlib's vector for ${JSON.stringify(password)}`, async () => {
      assert.equal(await verify(password, hash, format), true);
      assert.equal(await verify(`${password}x`, hash, format), false);
    });
  }

  it('parses rounds, salt and checksum', () => {
    const parsed = parseShaCryptHash('$6$rounds=656000$abcdefgh$' + 'a'.repeat(85) + '.', 'sha512-crypt');
    assert.deepEqual([parsed.rounds, parsed.salt, parsed.digest], [656000, 'abcdefgh', 'sha512']);
    assert.equal(parseShaCryptHash('$5$abc$' + 'a'.repeat(42) + '.', 'sha256-crypt').rounds, 5000);
    assert.equal(parseShaCryptHash('$5$$' + 'a'.repeat(42) + '.', 'sha256-crypt').salt, '');
  });

  describe('rejects garbled hashes with a clear message', () => {
    const checksum = 'a'.repeat(42) + '.';
    const cases: Array<[string, RegExp]> = [
      ['$5$saltstring', /missing checksum/],
      ['$5$saltstring$', /missing checksum/],
      ['$5$rounds=5000', /missing salt and checksum/],
      [`$5$rounds=5000$salt$${checksum}$`, /extra/],
      [`$5$rounds=05000$salt$${checksum}`, /'rounds=' must be a decimal integer/], // passlib: zero-padded rounds
      [`$5$rounds=$salt$${checksum}`, /'rounds=' must be a decimal integer/],
      [`$5$saltstringsaltstr$${checksum}`, /salt must be at most 16 characters/],
      [`$5$uy/:jIAhCetNCTtb0$${checksum}`, /salt must be at most 16 characters of/], // passlib: bad char
      [`$5$salt$${checksum.slice(1)}`, /checksum must be 43 characters/],
      [`$5$salt$${checksum.slice(1)}!`, /checksum must be 43 characters/],
      [`$5$salt$${'a'.repeat(43)}`, /non-canonical last character/],
    ];
    for (const [hash, message] of cases) {
      it(hash.slice(0, 40), () => {
        assert.throws(
          () => parseShaCryptHash(hash, 'sha256-crypt'),
          (error: unknown) => {
            assert.ok(error instanceof MalformedPasswordHashError, String(error));
            assert.match(error.message, /^malformed sha256-crypt hash: /);
            assert.match(error.message, message);
            return true;
          },
        );
      });
    }
    it('checks the SHA-512 checksum length and final character', () => {
      assert.throws(() => parseShaCryptHash(`$6$salt$${'a'.repeat(43)}`, 'sha512-crypt'), /checksum must be 86 characters/);
      assert.throws(() => parseShaCryptHash(`$6$salt$${'a'.repeat(86)}`, 'sha512-crypt'), /non-canonical last character/);
    });
  });

  it('refuses rounds above the cap (700,000) without hashing', () => {
    const hash = `$6$rounds=999999999$salt$${'a'.repeat(85)}.`;
    assert.throws(
      () => parseShaCryptHash(hash, 'sha512-crypt'),
      (error: unknown) => error instanceof PasswordHashLimitExceededError && /999999999 rounds is above the limit of 700000/.test(error.message),
    );
    assert.equal(parseShaCryptHash(`$6$rounds=700000$salt$${'a'.repeat(85)}.`, 'sha512-crypt').rounds, 700_000);
    assert.throws(() => parseShaCryptHash(`$6$rounds=700001$salt$${'a'.repeat(85)}.`, 'sha512-crypt'), PasswordHashLimitExceededError);
  });

  it('yields to the event loop during long verifications', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      await verify('x', `$6$rounds=60000$salt$${'a'.repeat(85)}.`, 'sha512-crypt');
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks > 0, 'timers ran while the rounds were computed');
  });
});
