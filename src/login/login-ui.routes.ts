import { Injectable } from '@nestjs/common';
import type { Router } from 'express';
import { DESIGN_CSS, DESIGN_HASH, DESIGN_STYLESHEET_HEADERS, DESIGN_STYLESHEET_ROUTE } from '../common/design/design-stylesheet.js';
import { sendStatic, staticBody } from '../common/http/static-body.js';
import { AccountLinksUi } from './account-links.router.js';
import { ConsentUi } from './consent.router.js';
import { LoginEntryUi } from './login-entry.router.js';
import { LoginInteractions } from './login-interactions.js';
import { OwedActionsUi } from './owed-actions.router.js';
import { PasswordLoginUi } from './password-login.router.js';
import { RegistrationUi } from './registration.router.js';
import { SecondFactorUi } from './second-factor.router.js';

/** The sign-in's own pages under `/ui/login`: the doors a protocol's interaction comes in by, and their steps. */
@Injectable()
export class LoginUiRoutes {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly accountLinks: AccountLinksUi,
    private readonly entry: LoginEntryUi,
    private readonly passwords: PasswordLoginUi,
    private readonly registration: RegistrationUi,
    private readonly secondFactor: SecondFactorUi,
    private readonly owedActions: OwedActionsUi,
    private readonly consent: ConsentUi,
  ) {}

  routes(router: Router): void {
    // The stylesheet of every page of the login UI, the account page and my applications (docs/design.md).
    const stylesheet = staticBody(DESIGN_CSS);
    router.get(DESIGN_STYLESHEET_ROUTE, (req, res) => {
      if (req.params.hash !== DESIGN_HASH) return void res.status(404).type('text/plain').send('not found');
      res.set(DESIGN_STYLESHEET_HEADERS);
      sendStatic(req, res, stylesheet);
    });
    // First: the pages of mailed links have fixed paths that `/:uid` would match.
    this.accountLinks.routes(router, this.interactions.wrap);
    this.entry.routes(router);
    this.passwords.routes(router);
    this.registration.routes(router);
    this.secondFactor.routes(router);
    this.owedActions.routes(router);
    this.consent.routes(router);
  }
}
