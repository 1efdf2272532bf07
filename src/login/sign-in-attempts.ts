import { Injectable } from '@nestjs/common';
import { clientAddress } from '../common/http/client-address.js';
import type { Request, Response } from 'express';
import { logins } from '../common/metrics/metrics.js';
import type { CheckSource } from '../users/password-checks.service.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';

/** The rate limits as the steps of a pending sign-in meet them: every code, passkey and mailed link counts like a password. */
@Injectable()
export class SignInAttempts {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly pages: SecondFactorPages,
    readonly rateLimiter: LoginRateLimiter,
  ) {}

  /** Counts an attempt against the rate limits; false when a limit answered 429 already (RFC 6585 §4). */
  async counted(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<boolean> {
    const retryAfter = await this.rateLimiter.reserve(ipOf(req), pending.loginName);
    if (retryAfter === undefined) return true;
    logins.inc({ result: 'rate_limited' });
    res.status(429).set('Retry-After', String(retryAfter));
    const t = (await this.interactions.formContext(req, interaction, 'code')).t;
    await this.pages.render(req, res, interaction, pending, t.tooManyAttempts(Math.ceil(retryAfter / 60)));
    return false;
  }

  /** A step succeeded: its attempts no longer count against this address and login name. */
  release(req: Request, loginName: string): Promise<void> {
    return this.rateLimiter.release(ipOf(req), loginName);
  }

  /** Where a check came from, as the events record it (the client's address only as a keyed hash). */
  source(req: Request): CheckSource {
    return { clientIpHash: this.rateLimiter.ipHash(ipOf(req)) };
  }
}

/** Where a request came from (src/common/http/client-address.ts: the proxies named by TRUSTED_PROXIES are looked past). */
export function ipOf(req: Request): string {
  return clientAddress(req);
}
