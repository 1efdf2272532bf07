import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import type { Interaction } from './sign-in-protocol.js';

/** An account that signed in with this browser: offered on the account selection page. */
export interface KnownAccount {
  userId: string;
  loginName: string;
  /** Epoch seconds of the password authentication (keeps `auth_time` and `max_age` honest). */
  authTime: number;
}

export const KNOWN_ACCOUNTS_COOKIE = 'portcullis_accounts';
const MAX_ACCOUNTS = 5;

/**
 * The browser's signed-in accounts (prompt=select_account: choose one or add one, docs/product-rules.md), kept in
 * an HttpOnly cookie MACed with a key derived from the master key, so any process can read it and no
 * one can forge it. Cleared on logout. It lets the browser skip the password only for the account of
 * its live server-side session (see LoginPagesUi.select), so the server can always end that.
 */
@Injectable()
export class KnownAccounts {
  constructor(
    private readonly hasher: SecretHasher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Puts the account first in this browser's cookie (kept 90 days). */
  remember(req: Request, res: Response, account: KnownAccount): void {
    const accounts = this.add(this.parse(req.headers.cookie), account);
    res.cookie(KNOWN_ACCOUNTS_COOKIE, this.serialize(accounts), {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: this.config.publicUrl.startsWith('https:'),
      maxAge: 90 * 24 * 3600 * 1000,
    });
  }

  parse(cookieHeader: string | undefined): KnownAccount[] {
    const raw = readCookie(cookieHeader, KNOWN_ACCOUNTS_COOKIE);
    if (!raw) return [];
    const [data, mac] = raw.split('.');
    if (!data || !mac || !this.hasher.matches(`accounts:${data}`, mac)) return [];
    try {
      const list = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as KnownAccount[];
      return Array.isArray(list) ? list.slice(0, MAX_ACCOUNTS) : [];
    } catch {
      return [];
    }
  }

  serialize(accounts: KnownAccount[]): string {
    const data = Buffer.from(JSON.stringify(accounts.slice(0, MAX_ACCOUNTS))).toString('base64url');
    return `${data}.${this.hasher.hash(`accounts:${data}`)}`;
  }

  add(accounts: KnownAccount[], account: KnownAccount): KnownAccount[] {
    return [account, ...accounts.filter((a) => a.userId !== account.userId)];
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** Choosing a remembered account is no re-authentication: not for prompt=login, max_age or a hint. */
export function selectionAllowed(interaction: Interaction): boolean {
  if (interaction.prompt.name === 'select_account') return true;
  return interaction.prompt.reasons.every((r) => r === 'no_session') && !interaction.params.login_hint;
}
