import { errors } from 'oidc-provider';
import { assertionLifetimeProblem } from '../grants/assertion-lifetime.js';

/**
 * oidc-provider's `assertJwtClientAuthClaimsAndHeader` hook: `private_key_jwt` client assertions are
 * bounded to an hour (grants/assertion-lifetime.ts). oidc-provider itself already requires `exp`, `aud`
 * and a `jti` it accepts once until `exp` (lib/shared/jwt_client_auth.js).
 */
export async function assertClientAssertionLifetime(_ctx: unknown, claims: { exp?: unknown; iat?: unknown }): Promise<void> {
  const problem = assertionLifetimeProblem(claims);
  if (problem) throw new errors.InvalidClientAuth(`client_assertion: ${problem}`);
}
