import type { AuthenticationResponseJSON } from '@simplewebauthn/server';

/** A discoverable credential names its user (WebAuthn §7.2 step 6): it must be the passkey's owner. */
export function userHandleMatches(response: AuthenticationResponseJSON, userId: string): boolean {
  const handle = response.response?.userHandle;
  return handle === undefined || handle === Buffer.from(userId).toString('base64url');
}

/** A posted JSON object, or undefined for anything else (never throws on bad input). */
export function parseJson<T>(value: unknown): T | undefined {
  if (typeof value !== 'string' || value.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}
