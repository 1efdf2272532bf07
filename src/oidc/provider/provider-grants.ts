import type Provider from 'oidc-provider';
import type { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { registerJwtProfileGrant } from '../grants/jwt-profile.grant.js';
import { registerTokenExchangeGrant } from '../grants/token-exchange.grant.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { signingAlg } from './provider-deps.js';
import type { ProviderDeps } from './provider-deps.js';

/** The grants part: the JWT profile (RFC 7523, with ID-JAG redemption) and token exchange (RFC 8693, with ID-JAG issue). */
export function registerGrants(provider: Provider, deps: ProviderDeps, parts: { jwtIds: JwtTokenIds; pairwise: PairwiseSubjects }): void {
  registerJwtProfileGrant(provider, {
    dataSource: deps.dataSource,
    uow: deps.uow,
    accounts: deps.accounts,
    idJag: deps.idJag,
    issuer: deps.issuer,
    get accessTokenTtl() {
      return deps.lifetimes.of().accessTokenSeconds;
    },
    alg: signingAlg(deps),
  });
  registerTokenExchangeGrant(provider, {
    ...deps,
    pairwise: parts.pairwise,
    ownJwts: parts.jwtIds,
    signingKey: deps.keys[0],
    get accessTokenTtl() {
      return deps.lifetimes.of().accessTokenSeconds;
    },
    alg: signingAlg(deps),
  });
}
