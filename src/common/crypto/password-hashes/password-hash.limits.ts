/**
 * Upper bounds on the cost parameters of imported hashes. A hash carries its own cost, so without a
 * cap one imported row (e.g. argon2 `m=99999999`, which makes the argon2 library try to allocate
 * ~95 GiB and get the process killed) would turn every login attempt for that user into a denial of
 * service. Each cap admits the strongest settings that mainstream libraries and current guidance
 * produce, and bounds one verification to a few seconds of CPU (≈ 7 s at worst, measured on the
 * 2-core development machine) and 1 GiB of memory. Hashes above a cap are rejected at import with
 * PasswordHashLimitExceededError; raising a cap is a one-line change here.
 */

/** Longest hash string accepted at all (the longest real one, sha512-crypt with rounds, is ~120). */
export const MAX_PASSWORD_HASH_LENGTH = 1024;

/** bcrypt: cost 16 ≈ 4.6 s. Config allows at most 15 for new hashes; typical imports use 10–13. */
export const BCRYPT_MIN_COST = 4;
export const BCRYPT_MAX_COST = 16;

/**
 * argon2: memory in KiB. 1 GiB is libsodium's "sensitive" preset (the largest mainstream default);
 * RFC 9106's first option (2 GiB, t=1) is deliberately refused for a shared login service. Work (m·t)
 * is capped at 4 GiB·passes, which admits libsodium's sensitive presets (argon2id 1 GiB·4,
 * argon2i 512 MiB·8) and the much smaller OWASP and Keycloak defaults (19 MiB·2, 7 MiB·5).
 */
export const ARGON2_MAX_MEMORY_KIB = 1024 * 1024;
export const ARGON2_MAX_WORK_KIB_PASSES = 4 * 1024 * 1024;
export const ARGON2_MAX_PARALLELISM = 64;

/**
 * scrypt: memory is 128·N·r bytes; work is proportional to N·r·p. passlib's default (ln=16, r=8,
 * p=1) uses 64 MiB and 2^19 work units; the caps admit N = 2^20 with r = 8 (1 GiB, ≈ 3.5 s).
 */
export const SCRYPT_MAX_MEMORY_BYTES = 1024 * 1024 * 1024;
export const SCRYPT_MAX_WORK = 2 ** 23;

/**
 * PBKDF2: iterations × output blocks (RFC 8018 runs the iterations once per hLen bytes of key).
 * Django 5.2 uses 1,000,000 (sha256); Keycloak's pbkdf2-sha256 writes a 64-byte key (2 blocks).
 * 10,000,000 ≈ 3 s for sha256, ≈ 7 s for sha512.
 */
export const PBKDF2_MAX_WORK = 10_000_000;

/**
 * SHA-crypt rounds. The spec allows up to 999,999,999; passlib's default is 656,000 (sha512) and
 * glibc's is 5,000. A round costs ≈ 2 µs for a short password and grows with its length (each round
 * hashes it once or twice): 1,000,000 rounds ≈ 2 s, ≈ 6 s for a password at MAX_PASSWORD_BYTES.
 */
export const SHA_CRYPT_MAX_ROUNDS = 1_000_000;

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
