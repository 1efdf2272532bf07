import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { APP_ACCESS_DENIED, RESOURCE_ACCESS_DENIED } from './application-entry.js';
import { ConsentUi } from './consent.router.js';
import { KnownAccounts, selectionAllowed } from './known-accounts.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPage } from './login-page.js';
import { selectAccountPage } from './login.views.js';
import { RegistrationUi } from './registration.router.js';
import { SecondFactorUi } from './second-factor.router.js';
import { SignInFlow } from './sign-in-flow.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { UPSTREAM_SIGN_IN } from './upstream-sign-in.js';
import type { UpstreamSignIn } from './upstream-sign-in.js';

/**
 * The page `/ui/login/{uid}` a protocol sends the browser to (docs/product-rules.md, "OpenID Connect and OAuth"): the
 * step a pending sign-in stands at, an agent client's consent, an `idp_hint`'s IdP, the registration form (prompt=create), the account selection
 * or the login page. Plain forms, no JavaScript but the passkey ceremony; every form carries a CSRF value bound to
 * the interaction (whose cookie the protocol checks).
 */
@Injectable()
export class LoginEntryUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly flow: SignInFlow,
    private readonly loginPage: LoginPage,
    private readonly secondFactor: SecondFactorUi,
    private readonly registration: RegistrationUi,
    private readonly known: KnownAccounts,
    private readonly consent: ConsentUi,
    @Inject(UPSTREAM_SIGN_IN) private readonly upstreams: UpstreamSignIn,
  ) {}

  routes(router: Router): void {
    router.get(
      `${LOGIN_UI_PREFIX}/:uid`,
      this.interactions.wrap((req, res) => this.show(req, res)),
    );
  }

  private async show(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const { prompt, params } = interaction;
    if (prompt.name === 'consent') return this.consent.show(req, res, interaction);
    // The session's user may not enter this application (interaction.policy.ts recorded it): signing in again would not help.
    if (prompt.reasons.includes(APP_ACCESS_DENIED)) return this.flow.refuseEntry(req, res, interaction, await this.flow.clientOf(interaction));
    if (prompt.reasons.includes(RESOURCE_ACCESS_DENIED)) return this.flow.refuseResource(req, res, interaction);
    if (await this.secondFactor.show(req, res, interaction)) return;
    if (prompt.name === 'login' && (await this.upstreams.followHint(req, res, interaction))) return;
    if (prompt.name === 'create' || req.query.form === 'register') return this.registration.show(req, res, interaction);
    const accounts = this.known.parse(req.headers.cookie);
    if (accounts.length > 0 && req.query.form !== 'login' && req.query.form !== 'directory' && selectionAllowed(interaction)) {
      const ctx = await this.interactions.formContext(req, interaction, 'select');
      return this.interactions.render(res, () =>
        selectAccountPage(
          ctx,
          accounts.map((a) => a.loginName),
          `?form=login`,
        ),
      );
    }
    return this.loginPage.render(req, res, interaction, params.login_hint ?? '');
  }
}
