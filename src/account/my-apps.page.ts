import { Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { APPS_UI_PATH } from '../login/ui-paths.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { contentSecurityPolicy } from '../login/login-page.headers.js';
import { ApplicationAccess } from '../users/project-access/application-access.service.js';
import { AccountVisits, appsLanding } from './account-visits.js';
import { myAppsMessages } from './my-apps.messages.js';
import { myAppsPage } from './my-apps.views.js';

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
    const visit = await this.visits.visit(req, res, appsLanding());
    if (!visit) return;
    const apps = await this.access.appsFor(visit.user.id, visit.user.orgId);
    res.status(200);
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'none'"));
    this.interactions.render(res, () => myAppsPage(visit.locale, myAppsMessages(visit.locale), apps));
  }

  routes(router: Router): void {
    router.get(
      APPS_UI_PATH,
      this.interactions.wrap((req, res) => this.show(req, res)),
    );
  }
}
