import type { IdJagServices } from '../../agents/id-jag/id-jag.services.js';
import type { IdJagIssuing, IdJagRedeeming } from '../../agents/provider-port.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import { SUBJECT_NOT_ADMITTED, SUBJECT_NOT_SERVED, invalidGrant } from '../provider/oauth-errors.js';
import type { AssertionReplayGuard } from './assertion-replay.js';
import { issueJwtBearerToken } from './jwt-bearer-token.js';
import { resolveSubject } from './token-exchange.parties.js';
import type { TokenExchangeDeps } from './token-exchange.grant.js';
import { TokenType } from './token-exchange.types.js';

/** What the provider gives enterprise-managed authorization's issuing side (src/agents/provider-port.ts). */
export function idJagIssuing(provider: any, deps: TokenExchangeDeps & { idJag: IdJagServices; signingKey: PrivateJwk | undefined }): IdJagIssuing {
  return {
    issuer: deps.issuer,
    account: (userId) => deps.accounts.find(userId),
    invalidGrant,
    idTokenSubject: (client, token) => resolveSubject(provider, deps, client, token, TokenType.idToken),
    refuses: (client, person) => deps.entry.refuses(client, person, 'token_exchange'),
    subjectNotServed: SUBJECT_NOT_SERVED,
    subjectNotAdmitted: SUBJECT_NOT_ADMITTED,
    signingKey: deps.signingKey,
  };
}

/** What the provider gives its redeeming side: the JWT bearer grant's token, on a grant of its own. */
export function idJagRedeeming(
  provider: any,
  replays: AssertionReplayGuard,
  deps: { accounts: TokenExchangeDeps['accounts']; issuer: string; accessTokenTtl: number; alg: string },
): IdJagRedeeming {
  return {
    issuer: deps.issuer,
    account: (userId) => deps.accounts.find(userId),
    invalidGrant,
    firstUse: (scope, jti, untilMs) => replays.firstUse(scope, jti, untilMs),
    issueResourceToken: (ctx, token) => issueJwtBearerToken(provider, ctx, { ...token, ttl: deps.accessTokenTtl, alg: deps.alg }),
  };
}
