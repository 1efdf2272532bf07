import type { SecretHasher } from '../common/crypto/secret-hasher.js';

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
 * its live server-side session (see LoginUiRouter.select), so the server can always end that.
 */
export class KnownAccounts {
  constructor(private readonly hasher: SecretHasher) {}

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
