import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { CheckSource } from '../users/password-checks.service.js';
import { LoginRateLimiter } from '../login/login-rate-limiter.js';
import { ipOf } from '../login/sign-in-attempts.js';
import type { AccountSection } from './account-page.views.js';
import { AccountPageRenderer } from './account-page.renderer.js';
import type { Visit } from './account-visits.js';

/** The login rate limits on the account page: a password, a code or a mailed link counts as in a sign-in. */
@Injectable()
export class AccountLimits {
  constructor(
    private readonly rateLimiter: LoginRateLimiter,
    private readonly renderer: AccountPageRenderer,
  ) {}

  /** Counts an attempt against the login rate limits; false when they answered 429 already. */
  async within(req: Request, res: Response, visit: Visit, section: AccountSection): Promise<boolean> {
    const retryAfter = await this.rateLimiter.reserve(ipOf(req), visit.user.loginName);
    if (retryAfter === undefined) return true;
    res.set('Retry-After', String(retryAfter));
    await this.renderer.render(res, visit, { status: 429, problem: { section, message: visit.lt.tooManyAttempts(Math.ceil(retryAfter / 60)) } });
    return false;
  }

  source(req: Request): CheckSource {
    return { clientIpHash: this.rateLimiter.ipHash(ipOf(req)) };
  }
}
