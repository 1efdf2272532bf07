/**
 * The password hash formats Portcullis can verify. Imported users keep the hash their previous
 * system stored (Keycloak, Auth0, Django, Linux /etc/shadow, ZITADEL, Apache htpasswd…) until their
 * next successful login, when the service re-hashes the password with bcrypt.
 */
const PASSWORD_HASH_FORMATS = [
  'bcrypt',
  'argon2id',
  'argon2i',
  'argon2d',
  'scrypt',
  'pbkdf2-sha256',
  'pbkdf2-sha512',
  'sha256-crypt',
  'sha512-crypt',
  'md5-crypt',
  'apache-md5-crypt',
] as const;

export type PasswordHashFormat = (typeof PASSWORD_HASH_FORMATS)[number];

/**
 * Prefixes that name a format. Modular crypt format (`$id$…`) identifiers come from each scheme's
 * own spec: `$2a$`/`$2b$`/`$2y$` bcrypt (OpenBSD, PHP's crypt_blowfish), `$argon2*$`, `$scrypt$` and
 * `$pbkdf2-sha*$` PHC strings (github.com/P-H-C/phc-string-format; passlib uses the same ids),
 * `$5$`/`$6$` SHA-crypt (Drepper, "Unix crypt using SHA-256 and SHA-512"), `$1$` MD5-crypt
 * (FreeBSD) and `$apr1$` (Apache's variant of it). Django writes `<algorithm>$…` without a leading `$`;
 * its Argon2PasswordHasher stores `argon2` followed by argon2-cffi's PHC string.
 */
const PREFIXES: ReadonlyArray<readonly [prefix: string, format: PasswordHashFormat]> = [
  ['$2a$', 'bcrypt'],
  ['$2b$', 'bcrypt'],
  ['$2y$', 'bcrypt'],
  ['$argon2id$', 'argon2id'],
  ['$argon2i$', 'argon2i'],
  ['$argon2d$', 'argon2d'],
  ['argon2$argon2id$', 'argon2id'],
  ['argon2$argon2i$', 'argon2i'],
  ['argon2$argon2d$', 'argon2d'],
  ['$scrypt$', 'scrypt'],
  ['$pbkdf2-sha256$', 'pbkdf2-sha256'],
  ['$pbkdf2-sha512$', 'pbkdf2-sha512'],
  ['pbkdf2_sha256$', 'pbkdf2-sha256'],
  ['pbkdf2_sha512$', 'pbkdf2-sha512'],
  ['$5$', 'sha256-crypt'],
  ['$6$', 'sha512-crypt'],
  ['$1$', 'md5-crypt'],
  ['$apr1$', 'apache-md5-crypt'],
];

/**
 * Names the format of a stored hash from its prefix alone, or null when no supported scheme claims
 * it. It does not check that the rest of the string is well formed: `validatePasswordHash` does.
 */
export function identifyPasswordHash(hash: string): PasswordHashFormat | null {
  if (typeof hash !== 'string') return null;
  for (const [prefix, format] of PREFIXES) {
    if (hash.startsWith(prefix)) return format;
  }
  return null;
}

/**
 * The scheme identifier of an unrecognised hash, for error messages: `$y$` for a modular crypt string,
 * `sha1$` for a Django-style one. Only the identifier is shown (at most 24 characters), never the
 * salt or checksum, so messages and logs do not carry crackable material.
 */
export function describeHashScheme(hash: string): string | null {
  const modular = /^\$([A-Za-z0-9._,=-]{1,24})\$/.exec(hash);
  if (modular) return `$${modular[1]}$`;
  const django = /^([A-Za-z0-9_-]{1,24})\$/.exec(hash);
  if (django) return `${django[1]}$`;
  return null;
}
