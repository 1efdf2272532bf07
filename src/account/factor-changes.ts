import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { FactorsService } from '../users/factors/factors.service.js';
import { verifyRegistration } from '../users/factors/passkeys.js';
import { totpUri } from '../users/factors/totp.js';
import { esc, page } from '../login/login.views.js';
import { parseJson } from '../login/passkey-responses.js';
import { SecondFactorPages } from '../login/second-factor.pages.js';
import { totpEnrolPage } from '../login/second-factor.views.js';
import { AccountLimits } from './account-limits.js';
import { AccountPageRenderer, challengeKey, done } from './account-page.renderer.js';
import { backToAccount } from './account-page.views.js';
import type { AccountForm, Visit } from './account-visits.js';

/** The account page's second factors: TOTP and passkey enrolment, recovery codes, removal. */
@Injectable()
export class FactorChanges {
  constructor(
    private readonly renderer: AccountPageRenderer,
    private readonly limits: AccountLimits,
    private readonly factors: FactorsService,
    private readonly factorPages: SecondFactorPages,
  ) {}

  forms(): AccountForm[] {
    return [
      ['factors/totp', true, (req, res, v) => this.startTotp(req, res, v)],
      ['factors/totp/confirm', true, (req, res, v) => this.confirmTotp(req, res, v)],
      ['factors/passkey', true, (req, res, v) => this.addPasskey(req, res, v)],
      ['factors/recovery-codes', true, (req, res, v) => this.newRecoveryCodes(req, res, v)],
      ['factors/remove', true, (req, res, v) => this.removeFactor(req, res, v)],
    ];
  }

  private async startTotp(_req: Request, res: Response, visit: Visit): Promise<void> {
    const { factorId, secret } = await this.factors.startTotp(visit.user);
    this.totpPage(res, visit, factorId, secret);
  }

  private totpPage(res: Response, visit: Visit, factorId: string, secret: string, error?: string): void {
    const ctx = this.renderer.formContext(visit, 'factors/totp/confirm');
    this.renderer.page(
      res,
      appendBeforeEnd(totpEnrolPage(ctx, secret, totpUri(secret, 'Portcullis', visit.user.loginName), factorId, error), backToAccount(visit.t)),
    );
  }

  private async confirmTotp(req: Request, res: Response, visit: Visit): Promise<void> {
    const factorId = String(req.body.factorId ?? '');
    const secret = await this.factors.pendingTotpSecret(visit.user.id, factorId);
    if (!secret) return this.renderer.refuse(res, visit, 400, visit.t.invalidForm);
    if (!(await this.limits.within(req, res, visit, 'factors'))) return;
    const result = await this.factors.confirmTotp(visit.user, factorId, String(req.body.code ?? ''), this.limits.source(req));
    if (!result.ok) {
      res.status(401);
      return this.totpPage(res, visit, factorId, secret, visit.lt.invalidCode);
    }
    return this.afterEnrolment(res, visit);
  }

  private async addPasskey(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!visit.policy.passkeys) return this.renderer.refuse(res, visit, 403, visit.lt.passkeyRefused);
    const response = parseJson<RegistrationResponseJSON>(req.body.response);
    const passkey = response
      ? await verifyRegistration(this.factorPages.rp, response, this.factorPages.challenges.checker(challengeKey(visit.session), 'register'))
      : undefined;
    if (!passkey) return this.renderer.render(res, visit, { status: 400, problem: { section: 'factors', message: visit.lt.passkeyRefused } });
    await this.factors.addPasskey(visit.user, passkey);
    return this.afterEnrolment(res, visit);
  }

  /** A first factor comes with recovery codes, shown once (as at enrolment in a sign-in). */
  private async afterEnrolment(res: Response, visit: Visit): Promise<void> {
    if ((await this.factors.summary(visit.user.id)).recoveryCodes) return done(res, 'factor-added');
    return this.showRecoveryCodes(res, visit, await this.factors.newRecoveryCodes(visit.user));
  }

  private async newRecoveryCodes(_req: Request, res: Response, visit: Visit): Promise<void> {
    return this.showRecoveryCodes(res, visit, await this.factors.newRecoveryCodes(visit.user));
  }

  private showRecoveryCodes(res: Response, visit: Visit, codes: string[]): void {
    const list = `<p>${esc(visit.lt.recoveryInstructions)}</p><ul>${codes.map((c) => `<li><code data-recovery-code>${esc(c)}</code></li>`).join('')}</ul>`;
    this.renderer.page(res, page(visit.locale, visit.t.recoveryTitle, `${list}${backToAccount(visit.t)}`));
  }

  private async removeFactor(req: Request, res: Response, visit: Visit): Promise<void> {
    await this.factors.removeOwn(visit.user, String(req.body.factorId ?? ''), visit.policy.mfa === 'required');
    done(res, 'factor-removed');
  }
}

function appendBeforeEnd(html: string, extra: string): string {
  return html.replace('</main>', `${extra}</main>`);
}
