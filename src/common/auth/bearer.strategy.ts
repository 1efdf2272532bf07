import { Inject, Injectable, Optional } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { SecretHasher } from '../crypto/secret-hasher.js';
import { DpopNonces, dpopNonceSecret } from './dpop-nonce.js';
import { DPOP_IAT_WINDOW_SECONDS, DPOP_TOKEN_REFUSALS, DpopChallenge, verifyDpopProof } from './dpop-proof.js';
import { DPOP_REPLAYS } from './dpop-replay.js';
import type { DpopReplays } from './dpop-replay.js';
import { PRINCIPAL_RESOLVER } from './principal-resolver.js';
import type { PrincipalResolver } from './principal-resolver.js';
import { isDpopBound } from './principal.js';
import type { Principal } from './principal.js';

/**
 * Passport's RFC 6750 bearer strategy, resolving tokens through the domain's PrincipalResolver, and
 * RFC 9449's `DPoP` scheme beside it. Only the Authorization header is read (RFC 6750 §2.1): the strategy
 * would also take `access_token` from the query (§2.3, which leaks tokens into logs and histories) and from
 * a form body (§2.2); neither is offered by this API, so such a token is no token at all (401).
 *
 * A DPoP-bound access token (`cnf.jkt`) is refused as a Bearer token (RFC 9449 §7.2): whoever stole it
 * also needs the client's private key. Presented as `Authorization: DPoP <token>`, its proof is checked
 * (dpop-proof.ts), its key compared with the binding and its `jti` recorded as used in every process.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  private readonly nonces: DpopNonces;
  private readonly publicUrl: string;

  constructor(
    @Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver,
    @Inject(APP_CONFIG) config: AppConfig,
    hasher: SecretHasher,
    @Optional() @Inject(DPOP_REPLAYS) private readonly replays?: DpopReplays,
  ) {
    super();
    this.nonces = new DpopNonces(dpopNonceSecret(hasher));
    this.publicUrl = config.publicUrl;
  }

  override authenticate(req: Request, options?: object): void {
    const [scheme, token, ...rest] = (req.headers.authorization ?? '').split(' ');
    if (/^DPoP$/i.test(scheme) && token && rest.length === 0) {
      // passport gives the strategy these for the one request it authenticates (passport-strategy's augmentation).
      const outcome = this as unknown as { success(user: Principal): void; error(error: unknown): void };
      this.viaDpop(req, token).then(
        (principal) => outcome.success(principal),
        (error: unknown) => outcome.error(error),
      );
      return;
    }
    super.authenticate({ headers: { authorization: req.headers.authorization } } as Request, options);
  }

  async validate(token: string): Promise<Principal | false> {
    const principal = await this.resolver.resolve(token);
    if (principal && isDpopBound(principal)) {
      throw new DpopChallenge('invalid_token', DPOP_TOKEN_REFUSALS.asBearer);
    }
    return principal ?? false;
  }

  /** RFC 9449 §7.1: a DPoP-bound access token with a proof of possession of its key. */
  private async viaDpop(req: Request, token: string): Promise<Principal> {
    const proof = req.headers.dpop;
    // Exactly one DPoP header (§4.3 check 1); Node joins repeated ones with ", ", which no JWT contains.
    if (typeof proof !== 'string' || proof === '')
      throw new DpopChallenge('invalid_dpop_proof', 'a DPoP proof is required with the DPoP scheme', this.nonces.next());
    if (!this.replays) throw new DpopChallenge('invalid_token', 'DPoP is not available on this service');
    const now = Date.now();
    const path = (req.originalUrl ?? req.url).split(/[?#]/)[0];
    // htu is built from PUBLIC_URL, never from the Host header (SECURITY.md, "Host header injection").
    const { jkt, jti } = await verifyDpopProof(proof, { method: req.method, url: `${this.publicUrl}${path}`, accessToken: token, nonces: this.nonces, now });
    const principal = await this.resolver.resolve(token);
    if (!principal) throw new DpopChallenge('invalid_token', 'the access token is not valid');
    if (!isDpopBound(principal)) throw new DpopChallenge('invalid_token', 'the access token is not DPoP-bound');
    if (principal.credential.jkt !== jkt) throw new DpopChallenge('invalid_token', DPOP_TOKEN_REFUSALS.otherKey);
    // §11.1: a proof is accepted once, in whichever process it arrives.
    if (!(await this.replays.firstUse(principal.credential.clientId, jti, now + DPOP_IAT_WINDOW_SECONDS * 1000))) {
      throw new DpopChallenge('invalid_dpop_proof', 'the DPoP proof was already used', this.nonces.next());
    }
    return principal;
  }
}
