import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { forgotPasswordPath } from './account-links.router.js';
import { forgotPasswordLink } from './account-links.views.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { contentSecurityPolicy } from './login-page.headers.js';
import { ExternalPasswords } from './external-passwords.js';
import { esc, loginPage, passkeysOnly } from './login.views.js';
import type { LoginOptions } from './login.views.js';
import { passkeyRecoveryPath } from './passkey-links.router.js';
import { passkeyRecoveryLink } from './passkey-links.views.js';
import type { Messages } from './messages.js';
import { RegistrationGate } from './registration-gate.js';
import { SecondFactorPages } from './second-factor.pages.js';
import type { PasskeyAutofill } from './second-factor.views.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { UPSTREAM_SIGN_IN } from './upstream-sign-in.js';
import type { UpstreamSignIn } from './upstream-sign-in.js';

/** The login page, with what the client's organization offers. */
@Injectable()
export class LoginPage {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly registration: RegistrationGate,
    private readonly pages: SecondFactorPages,
    @Inject(UPSTREAM_SIGN_IN) private readonly upstreams: UpstreamSignIn,
    private readonly external: ExternalPasswords,
  ) {}

  /** "Forgot password" where the organization takes passwords, the link to the registration form, the passkey sign-in and its IdPs. */
  async render(
    req: Request,
    res: Response,
    interaction: Interaction,
    loginName: string,
    error?: (t: Messages) => string,
    autofill: PasskeyAutofill = 'on-load',
  ): Promise<void> {
    const ctx = await this.interactions.formContext(req, interaction, 'login');
    const offered = await this.registration.offered(interaction);
    const upstream = await this.upstreams.options(interaction);
    // Passkeys only (docs/passwordless.md): no password field, and "lost your passkey?" in place of "forgot password";
    // the people a directory keeps sign in with its password through a door of their own, the same for any name.
    const doors = offered.passkeysOnly && offered.orgId ? await this.external.doorsOf(offered.orgId) : [];
    const atDoor = doors.length > 0 && (req.query.form === 'directory' || (req.body as { door?: unknown } | undefined)?.door === 'directory');
    const options: LoginOptions = !offered.passkeysOnly ? upstream : atDoor ? { ...upstream, password: 'required', door: 'directory' } : passkeysOnly(upstream);
    const forgot = atDoor
      ? ''
      : offered.passkeysOnly
        ? passkeyRecoveryLink(ctx.t, passkeyRecoveryPath(interaction.uid)) + doorLinks(ctx.t.signInWith, interaction.uid, doors)
        : options.password === 'none'
          ? ''
          : forgotPasswordLink(ctx.t, forgotPasswordPath(interaction.uid));
    const link = forgot + (offered.allowed ? `<p><a href="${LOGIN_UI_PREFIX}/${interaction.uid}?form=register">${esc(ctx.t.register)}</a></p>` : '');
    const passkey = await this.pages.loginPasskey(req, interaction, offered.passkeys || offered.passkeysOnly, autofill);
    // Browsers hold a form's redirects to `form-action` too: the login name may lead to an IdP (docs/federation.md).
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", [interaction.params.redirect_uri, ...options.upstreams]));
    this.interactions.render(res, () => loginPage(ctx, loginName, error?.(ctx.t), link, passkey, options));
  }

  /** Whether the interaction's organization signs in with passkeys only (docs/passwordless.md). */
  async passkeysOnly(interaction: Interaction): Promise<boolean> {
    return (await this.registration.offered(interaction)).passkeysOnly;
  }
}

/** One link per directory that checks passwords, each to the same door: which one keeps a person is not asked. */
function doorLinks(signInWith: (name: string) => string, uid: string, names: string[]): string {
  return names.map((name) => `<p><a href="${LOGIN_UI_PREFIX}/${uid}?form=directory" data-directory-password>${esc(signInWith(name))}</a></p>`).join('');
}
