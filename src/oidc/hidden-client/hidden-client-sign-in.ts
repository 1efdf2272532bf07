import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { AccountFinder } from '../account/account.finder.js';
import { ACR_MFA } from '../../login/authentication-methods.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { ProviderHolder } from '../provider/provider.holder.js';

/** Where a hidden client's sign-in returns: its one redirect URI (the organization's SAML continue URL). */

/** A sign-in to start through an application's hidden client. */
export interface HiddenClientRequest {
  clientId: string;
  orgId: string;
  /** Carried through the round trip and handed back to the return URL as is. */
  state: string;
  /** The S256 challenge the code must bear (RFC 7636 §4.2). */
  codeChallenge: string;
  /** The user authenticates again even within a session (OIDC Core §3.1.2.1, `prompt=login`). */
  reauthenticate: boolean;
  /** No page may be shown: without a session the sign-in fails (OIDC Core §3.1.2.1, `prompt=none`). */
  passive: boolean;
  /** A second factor is required (`acr_values`; the interaction policy steps the session up). */
  secondFactor: boolean;
}

/** What the code of a request names, expected as stored when the sign-in started. */
export interface ExpectedCode {
  clientId: string;
  orgId: string;
  codeChallenge: string;
}

/** The user a code was issued for, read now: their claims by scope (OIDC Core §5.4). */
export interface SignedInUser {
  id: string;
  claims(scope: string): Promise<Record<string, unknown>>;
}

/** How the return of a hidden client's sign-in ends. */
export type HiddenClientReturn =
  /** The authorization answered an error; `needsInteraction` when only a page the request forbade could have helped. */
  | { kind: 'declined'; error: string; needsInteraction: boolean }
  /** No code, one issued for another sign-in (nothing was consumed), or one used before (its grant is revoked). */
  | { kind: 'notThisSignIn' }
  /** The code was consumed; `user` is absent when the user cannot sign in here (inactive, or of another organization). */
  | { kind: 'signedIn'; user: SignedInUser | undefined; mfa: boolean; authTime: number | undefined; sessionUid: string };

/** A code's fields as oidc-provider stores them (its AuthorizationCode model). */
interface IssuedCode {
  clientId: string;
  accountId: string;
  redirectUri: string;
  codeChallenge?: string;
  consumed?: number;
  acr?: string;
  authTime?: number;
  sessionUid?: string;
  grantId?: string;
  consume(): Promise<void>;
}

/** The errors of a sign-in that needed a page (OIDC Core §3.1.2.6). */
const INTERACTION_ERRORS = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

/**
 * The one way into the OIDC sign-in for a surface that is not an OAuth client (docs/saml.md): an ordinary authorization
 * of an application's hidden client, so that the login UI, second factor, session and organization rule are the OIDC
 * ones. The hidden client cannot authenticate at the token endpoint (src/oidc/adapter/client.store.ts), so its code is
 * redeemed here, with the checks the token endpoint makes of an authorization code grant (RFC 6749 §4.1.3: issued to
 * this client, for this redirect URI, not used before; RFC 7636 §4.6: the PKCE challenge), and consumed once; a code
 * used again revokes its grant (RFC 6749 §4.1.2).
 */
@Injectable()
export class HiddenClientSignIn {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly accounts: AccountFinder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The authorization URL that starts the sign-in. */
  authorizeUrl(request: HiddenClientRequest): string {
    const params = new URLSearchParams({
      client_id: request.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: idpEndpoints(this.config.publicUrl, request.orgId).continueUrl,
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    });
    if (request.reauthenticate) params.set('prompt', 'login');
    if (request.passive) params.set('prompt', 'none');
    if (request.secondFactor) params.set('acr_values', ACR_MFA);
    return `${this.config.publicUrl}${OIDC_ROUTES.authorization}?${params}`;
  }

  /** The return URL's query: the error it carries, or its code checked against `expected` and consumed. */
  async redeem(query: Record<string, unknown>, expected: ExpectedCode): Promise<HiddenClientReturn> {
    if (typeof query.error === 'string') return { kind: 'declined', error: query.error, needsInteraction: INTERACTION_ERRORS.has(query.error) };
    const code = typeof query.code === 'string' ? ((await this.holder.provider.AuthorizationCode.find(query.code)) as IssuedCode | undefined) : undefined;
    if (code?.consumed && code.clientId === expected.clientId) {
      await this.revokeGrant(code.grantId);
      return { kind: 'notThisSignIn' };
    }
    if (
      !code ||
      code.consumed ||
      code.clientId !== expected.clientId ||
      code.codeChallenge !== expected.codeChallenge ||
      code.redirectUri !== idpEndpoints(this.config.publicUrl, expected.orgId).continueUrl
    ) {
      return { kind: 'notThisSignIn' };
    }
    await code.consume();
    // The client's project is the one whose roles the claims carry (a SAML application's, say).
    const account = await this.accounts.find(code.accountId, expected.clientId);
    const user =
      account && account.orgId === expected.orgId ? { id: account.accountId, claims: (scope: string) => account.claims('id_token', scope) } : undefined;
    return { kind: 'signedIn', user, mfa: code.acr === ACR_MFA, authTime: code.authTime, sessionUid: code.sessionUid ?? '' };
  }

  /**
   * A code used twice may have leaked: "the authorization server MUST deny the request and SHOULD revoke (when possible)
   * all tokens previously issued based on that authorization code" (RFC 6749 §4.1.2). As oidc-provider's own code grant
   * does (lib/helpers/revoke.js), the code's grant goes, with every code and token issued from it.
   */
  private async revokeGrant(grantId: string | undefined): Promise<void> {
    if (!grantId) return;
    const { provider } = this.holder;
    await Promise.all([provider.AccessToken, provider.RefreshToken, provider.AuthorizationCode].map((model) => model.revokeByGrantId(grantId)));
    await provider.Grant.adapter.destroy(grantId);
  }
}
