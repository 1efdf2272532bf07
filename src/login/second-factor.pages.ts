import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { FactorsService } from '../users/factors/factors.service.js';
import { authenticationOptions, registrationOptions, relyingPartyOf } from '../users/factors/passkeys.js';
import type { RelyingParty } from '../users/factors/passkeys.js';
import { totpUri } from '../users/factors/totp.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { isPasskeyMethod } from './authentication-methods.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';
import type { Interaction } from './login-interactions.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { enrolPage, passkeyForm, recoveryCodesPage, secondFactorPage, totpEnrolPage } from './second-factor.views.js';
import type { PasskeyAutofill } from './second-factor.views.js';
import { WebAuthnChallenges } from './webauthn-challenges.js';
import { passwordChangePage, verifyEmailPage } from './account-links.views.js';

/**
 * The pages of the second step, each for where a pending sign-in stands, and the WebAuthn options they
 * carry: this instance as the relying party, with challenges bound to the interaction (WebAuthnChallenges).
 */
@Injectable()
export class SecondFactorPages {
  readonly rp: RelyingParty;
  readonly challenges: WebAuthnChallenges;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly interactions: LoginInteractions,
    private readonly factors: FactorsService,
    private readonly policies: LoginPolicies,
    hasher: SecretHasher,
  ) {
    this.rp = relyingPartyOf(config.publicUrl, 'Portcullis');
    this.challenges = new WebAuthnChallenges(hasher);
  }

  /**
   * The passkey part of the login page, where the client's organization allows passkeys. After a refused
   * passkey, autofill waits for the user's action (passkey-assets.ts).
   */
  async loginPasskey(req: Request, interaction: Interaction, allowed: boolean, autofill: PasskeyAutofill = 'on-load'): Promise<string> {
    if (!allowed) return '';
    const ctx = await this.interactions.formContext(req, interaction, 'passkey');
    return passkeyForm(ctx, 'sign-in', await authenticationOptions(this.rp, this.challenges.issue(interaction.uid, 'sign-in')), autofill);
  }

  /** The page of the step `pending` is at, with `error` above its form. */
  async render(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, error?: string): Promise<void> {
    if (pending.verifyEmail) {
      const ctx = await this.interactions.formContext(req, interaction, 'verify-email');
      const verifyEmail = pending.verifyEmail;
      return this.interactions.render(res, () => verifyEmailPage(ctx, verifyEmail, `${LOGIN_UI_PREFIX}/${interaction.uid}/verify-email/resend`, error));
    }
    if (pending.changePassword) {
      const ctx = await this.interactions.formContext(req, interaction, 'password-change');
      return this.interactions.render(res, () => passwordChangePage(ctx, pending.loginName, error));
    }
    if (pending.recoveryShown) return this.recoveryCodes(req, res, interaction, []);
    if (pending.totpFactorId) {
      const secret = await this.factors.pendingTotpSecret(pending.userId, pending.totpFactorId);
      if (secret) return this.totp(req, res, interaction, pending, secret, error);
    }
    const policy = await this.policies.of(interaction, pending.orgId);
    if (pending.enrol) {
      const ctx = await this.interactions.formContext(req, interaction, 'enrol/passkey');
      const passkey = policy.passkeys ? passkeyForm(ctx, 'register', await this.creationOptions(interaction, pending)) : '';
      const base = `${LOGIN_UI_PREFIX}/${interaction.uid}`;
      return this.interactions.render(res, () =>
        enrolPage(ctx, pending.required, `${base}/enrol/totp`, passkey, pending.required ? undefined : `${base}/enrol/skip`, error),
      );
    }
    const factors = await this.factors.summary(pending.userId);
    const passkeys = policy.passkeys && !pending.methods.some(isPasskeyMethod) ? factors.passkeys : [];
    const passkey =
      passkeys.length > 0
        ? passkeyForm(
            await this.interactions.formContext(req, interaction, 'passkey'),
            'sign-in',
            await authenticationOptions(this.rp, this.challenges.issue(interaction.uid, 'sign-in'), passkeys),
          )
        : '';
    const ctx = await this.interactions.formContext(req, interaction, 'code');
    return this.interactions.render(res, () => secondFactorPage(ctx, passkey, error));
  }

  /** TOTP enrolment: the new secret, then its first code. */
  async totp(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, secret: string, error?: string): Promise<void> {
    const ctx = await this.interactions.formContext(req, interaction, 'enrol/totp/confirm');
    this.interactions.render(res, () => totpEnrolPage(ctx, secret, totpUri(secret, 'Portcullis', pending.loginName), pending.totpFactorId ?? '', error));
  }

  /** The recovery codes, shown once. */
  async recoveryCodes(req: Request, res: Response, interaction: Interaction, codes: string[]): Promise<void> {
    const ctx = await this.interactions.formContext(req, interaction, 'continue');
    this.interactions.render(res, () => recoveryCodesPage(ctx, codes));
  }

  private async creationOptions(interaction: Interaction, pending: PendingSignIn) {
    const { passkeys } = await this.factors.summary(pending.userId);
    const user = { id: pending.userId, loginName: pending.loginName, displayName: pending.loginName };
    return registrationOptions(this.rp, user, this.challenges.issue(interaction.uid, 'register'), passkeys);
  }
}
