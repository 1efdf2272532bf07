import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { LoginInteractions } from '../login/login-interactions.js';
import { contentSecurityPolicy } from '../login/login-page.headers.js';
import { ApplicationAccess } from '../users/project-access/application-access.service.js';
import { AccountVisits } from './account-visits.js';
import { myAppsMessages } from './my-apps.messages.js';
import { myAppsPage } from './my-apps.views.js';

/** The `state` of a sign-in started from `/ui/apps`: the signed-in page sends the browser back there. */
const LANDING = /^apps\.[A-Za-z0-9_-]{22}$/;

/**
 * `/ui/apps` (docs/application-access.md, "My applications"): the OIDC and SAML applications of the person's
 * organization that have a `homeUrl` and that it may enter, read on each visit from the grants as every door reads
 * them. In the account page's session: without one, the same sign-in, landing back here.
 */
@Injectable()
export class MyAppsPage {
  constructor(
    private readonly visits: AccountVisits,
    private readonly access: ApplicationAccess,
    private readonly interactions: LoginInteractions,
  ) {}

  async show(req: Request, res: Response): Promise<void> {
    const visit = await this.visits.visit(req, res, `apps.${randomBytes(16).toString('base64url')}`);
    if (!visit) return;
    const apps = await this.access.appsFor(visit.user.id, visit.user.orgId);
    res.status(200);
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'none'"));
    this.interactions.render(res, myAppsPage(visit.locale, myAppsMessages(visit.locale), apps));
  }

  /** Whether a finished sign-in's `state` is one this page started. */
  static startedHere(state: unknown): boolean {
    return typeof state === 'string' && LANDING.test(state);
  }
}
