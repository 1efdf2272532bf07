import type { Request, Response } from 'express';
import { Inject, Injectable } from '@nestjs/common';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { ACCOUNT_PROTOCOL } from './account-protocol.js';
import type { AccountProtocol } from './account-protocol.js';

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

/** A sign-in older than this asks again before a change to how the user signs in (e-mail, factors, identities). */
export const FRESH_SIGN_IN_S = 15 * 60;

/** The account page's view of the browser's login session, and the CSRF values bound to it. */
@Injectable()
export class AccountSessions {
  constructor(
    @Inject(ACCOUNT_PROTOCOL) private readonly protocol: AccountProtocol,
    private readonly hasher: SecretHasher,
  ) {}

  async current(req: Request, res: Response): Promise<AccountSession | undefined> {
    const session = await this.protocol.session(req, res);
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
}
