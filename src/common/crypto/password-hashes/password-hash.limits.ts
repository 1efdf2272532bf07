/**
 * Upper bounds on the cost parameters of imported hashes. A hash carries its own cost, so without a
 * cap one imported row (e.g. argon2 `m=99999999`, which makes the argon2 library try to allocate
 * ~95 GiB and get the process killed) would turn every login attempt for that user into a denial of
 * service. Any anonymous caller can trigger a verification (a wrong password against an imported user
 * until its first sign-in re-hashes it), so each cap bounds one verification to at most 256 MiB of
 * memory and about a second of CPU on the 2-core development machine, while admitting the defaults of
 * mainstream libraries and current guidance (OWASP, Keycloak, Django, passlib, libsodium "moderate").
 * On top, only a few verifications run at once per process (expensive-verifications.ts). Hashes above a
 * cap are rejected at import with PasswordHashLimitExceededError; changing a cap is a one-line change here.
 */

/** Longest hash string accepted at all (the longest real one, sha512-crypt with rounds, is ~120). */
export const MAX_PASSWORD_HASH_LENGTH = 1024;

/** bcrypt: cost 15 ≈ 2.3 s, the most BCRYPT_COST allows for new hashes; typical imports use 10–13. */
export const BCRYPT_MIN_COST = 4;
export const BCRYPT_MAX_COST = 15;

/**
 * argon2: memory in KiB, at most 256 MiB (libsodium's "moderate" preset, RFC 9106's second option is
 * 64 MiB); libsodium's 1 GiB "sensitive" preset is refused for a shared login service. Work (m·t) is
 * capped at 1 GiB·passes (256 MiB·4), which admits the OWASP and Keycloak defaults (19 MiB·2, 7 MiB·5).
 * Lanes beyond 8 only multiply threads on a 2-core machine.
 */
export const ARGON2_MAX_MEMORY_KIB = 256 * 1024;
export const ARGON2_MAX_WORK_KIB_PASSES = 1024 * 1024;
export const ARGON2_MAX_PARALLELISM = 8;

/**
 * scrypt: memory is 128·N·r bytes; work is proportional to N·r·p. passlib's default (ln=16, r=8,
 * p=1) uses 64 MiB and 2^19 work units; the caps admit N = 2^18 with r = 8 (256 MiB, ≈ 0.9 s).
 */
export const SCRYPT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;
export const SCRYPT_MAX_WORK = 2 ** 21;

/**
 * PBKDF2: iterations × output blocks (RFC 8018 runs the iterations once per hLen bytes of key).
 * Django 5.2 uses 1,000,000 (sha256); Keycloak's pbkdf2-sha256 writes a 64-byte key (2 blocks) with
 * 27,500 iterations. 2,000,000 ≈ 0.6 s for sha256, ≈ 1.4 s for sha512.
 */
export const PBKDF2_MAX_WORK = 2_000_000;

/**
 * SHA-crypt rounds. The spec allows up to 999,999,999; passlib's default is 656,000 (sha512) and
 * glibc's is 5,000. A round costs ≈ 2 µs for a short password and grows with its length (each round
 * hashes it once or twice): 700,000 rounds ≈ 1.4 s.
 */
export const SHA_CRYPT_MAX_ROUNDS = 700_000;

/**
 * Longest password (UTF-8 bytes) that is hashed or verified. SHA-crypt's cost grows with the
 * password's length (quadratically in its setup steps), so an attacker-chosen megabyte "password"
 * against an imported `$6$` hash would be a denial of service. bcrypt reads only the first 72 bytes.
 */
export const MAX_PASSWORD_BYTES = 1024;

/** Salts and checksums outside these byte lengths are not produced by any library we import from. */
export const MAX_SALT_BYTES = 128;
/** A checksum shorter than 16 bytes could be matched by chance; no mainstream library emits one. */
export const MIN_CHECKSUM_BYTES = 16;
export const MAX_CHECKSUM_BYTES = 128;
