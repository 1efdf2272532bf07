import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { ACCOUNT_CLIENT_ID, ACCOUNT_SIGNED_IN_PATH } from '../oidc/provider/account-client.js';
import { OIDC_ROUTES } from '../oidc/provider/oidc.routes.js';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';

/** The login UI's session as the account page reads it: the user, its public id, when and how the user signed in. */
export interface AccountSession {
  accountId: string;
  /** The public id (the sessions list's `sessionId`). */
  uid: string;
  /** The cookie's value: secret, it binds the page's CSRF values and WebAuthn challenges to this session. */
  jti: string;
  loginTs: number;
  acr?: string;
}

interface StoredSession {
  accountId?: string;
  uid: string;
  jti: string;
  loginTs?: number;
  acr?: string;
}

/** A sign-in older than this asks again before a change to how the user signs in (e-mail, factors, identities). */
export const FRESH_SIGN_IN_S = 15 * 60;

/**
 * Reads oidc-provider's session outside the provider's routes (Session.get reads the signed cookie) and starts a
 * sign-in with the account page's static client when there is none. The provider alone writes sessions.
 */
@Injectable()
export class AccountSessions {
  private readonly publicUrl: string;

  constructor(
    private readonly holder: ProviderHolder,
    private readonly hasher: SecretHasher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicUrl = config.publicUrl;
  }

  async current(req: Request, res: Response): Promise<AccountSession | undefined> {
    const { provider } = this.holder;
    const session = (await provider.Session.get(provider.createContext(req, res))) as StoredSession;
    if (!session.accountId || !session.loginTs) return undefined;
    return { accountId: session.accountId, uid: session.uid, jti: session.jti, loginTs: session.loginTs, acr: session.acr };
  }

  /** Whether the user signed in recently enough for a change to how it signs in. */
  fresh(session: AccountSession): boolean {
    return Date.now() / 1000 - session.loginTs <= FRESH_SIGN_IN_S;
  }

  csrf(session: AccountSession): string {
    return this.hasher.hash(`account-csrf:${session.jti}`);
  }

  csrfMatches(session: AccountSession, sent: unknown): boolean {
    return typeof sent === 'string' && this.hasher.matches(`account-csrf:${session.jti}`, sent);
  }

  /**
   * The authorization request of the account page's sign-in (code flow with PKCE, as the client must). `again`
   * asks for the login even within a session. The code is never redeemed, so the verifier is not kept.
   */
  signInUrl(again: boolean, locale: string): string {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const params = new URLSearchParams({
      client_id: ACCOUNT_CLIENT_ID,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: `${this.publicUrl}${ACCOUNT_SIGNED_IN_PATH}`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(16).toString('base64url'),
      ui_locales: locale,
      ...(again ? { prompt: 'login' } : {}),
    });
    return `${OIDC_ROUTES.authorization}?${params}`;
  }
}
