import { RP } from './token-exchange.js';

/** An authorization request of the code flow (RFC 6749 §4.1.1) for `clientId`, back to `${RP}/cb`; `extra` on top. */
export function authorizeParams(clientId: string, extra: Record<string, string> = {}): Record<string, string> {
  return { client_id: clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st', ...extra };
}

/** PKCE (RFC 7636 §4.3) for a flow whose code is never redeemed: the service asks for a challenge, no verifier follows. */
export const PKCE = { code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' };
