import { RP } from '../../oidc/support/token-exchange.js';

/** An authorization request of the code flow (RFC 6749 §4.1.1) for `clientId`, back to `${RP}/cb`; `extra` on top. */
export function authorizeParams(clientId: string, extra: Record<string, string> = {}): Record<string, string> {
  return { client_id: clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st', ...extra };
}
