import Provider from 'oidc-provider';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';

/** oidc-provider's model of RFC 8628 device codes. */
export const DEVICE_CODE = 'DeviceCode';

/**
 * A device code's row outlives the code's own `exp` by this much, so that a device polling after expiry is
 * answered `expired_token` (RFC 8628 §3.5) and a user typing its code is told "expired" rather than "unknown":
 * oidc-provider reads device codes ignoring expiry and checks `exp` itself. The purge removes the row after it.
 */
export const DEVICE_CODE_ROW_GRACE_MS = 600_000;

/**
 * The id under which oidc-provider knows a device code found by its user code. The device code itself is
 * stored only as its keyed hash (docs/product-rules.md, "OpenID Connect and OAuth"), so it cannot be handed
 * back; the row's key is, behind a prefix no generated code has (oidc-provider's ids are nanoid's
 * `A-Za-z0-9_-`). oidc-provider saves the approval under this id (and the interaction remembers it), and
 * every adapter call with it addresses that same row.
 */
const ROW_HANDLE = 'row:';
/** Where a row handle is accepted: the user's pages. A client at the token endpoint presents device codes only. */
const HANDLE_ROUTES = new Set(['code_verification', 'device_resume']);

export function deviceCodeRowHandle(idHash: string): string {
  return `${ROW_HANDLE}${idHash}`;
}

/** The row key of a device code, or of a row handle on the user's pages; undefined: no row. */
export function deviceCodeRowKey(id: string, hasher: SecretHasher): string | undefined {
  if (!id.startsWith(ROW_HANDLE)) return hasher.hash(id);
  return HANDLE_ROUTES.has(Provider.ctx?.oidc?.route ?? '') ? id.slice(ROW_HANDLE.length) : undefined;
}

/** The stored form of a user code (normalized by oidc-provider: upper case, no separators). */
export function userCodeHash(userCode: string, hasher: SecretHasher): string {
  return hasher.hash(`user-code:${userCode}`);
}
