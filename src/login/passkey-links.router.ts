import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainError } from '../common/errors/domain-error.js';
import { AppLogger } from '../common/http/logging.js';
import { errorMessage } from '../common/http/failure-causes.js';
import { FactorsService } from '../users/factors/factors.service.js';
import { registrationOptions, verifyRegistration } from '../users/factors/passkeys.js';
import { ACCOUNT_LINK_PATHS, AccountLinksService } from '../users/self-service/account-links.service.js';
import type { PasskeyLinkHolder } from '../users/self-service/account-links.service.js';
import { chooseLocale } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';
import { LoginInteractions } from './login-interactions.js';
import type { Wrap } from './login-interactions.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUsers } from './login-users.js';
import { messages } from './messages.js';
import { parseJson } from './passkey-responses.js';
import { passkeyLinkPage, passkeyReadyPage, passkeyRecoveryPage, recoveryRequestedPage } from './passkey-links.views.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { ipOf } from './sign-in-attempts.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';

type LinkPurpose = keyof typeof ACCOUNT_LINK_PATHS;

/** The sign-in page's `[data-passkey-recovery]` link of a passkeys-only organization. */
export function passkeyRecoveryPath(uid: string): string {
  return `${LOGIN_UI_PREFIX}/${uid}/passkey-recovery`;
}

/**
 * A passkeys-only organization's mailed links (docs/passwordless.md): "lost your passkey?" inside a sign-in mails a
 * link as "forgot password" does; an invitation or that link opens a page that creates a passkey — after one of the
 * person's recovery codes when recovering an account that has some — and never asks for a password. The WebAuthn
 * challenge is bound to the link's code as the sign-in's are to its interaction (webauthn-challenges.ts).
 */
@Injectable()
export class PasskeyLinksUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly links: AccountLinksService,
    private readonly factors: FactorsService,
    private readonly pages: SecondFactorPages,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly loginUsers: LoginUsers,
    private readonly logger: AppLogger,
  ) {}

  routes(router: Router, wrap: Wrap): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    router.get(
      `${LOGIN_UI_PREFIX}/:uid/passkey-recovery`,
      wrap((req, res) => this.showRecovery(req, res)),
    );
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/passkey-recovery`,
      form,
      wrap((req, res) => this.recover(req, res)),
    );
  }

  /** The holder of a live link of `purpose` who signs in with passkeys only; undefined for anyone else. */
  holder(code: string, purpose: LinkPurpose): Promise<PasskeyLinkHolder | undefined> {
    return this.links.passkeyHolder(code, purpose);
  }

  private async showRecovery(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const ctx = await this.interactions.formContext(req, interaction, 'passkey-recovery');
    this.interactions.render(res, () => passkeyRecoveryPage(ctx, String(req.query.loginName ?? ''), backTo(interaction.uid)));
  }

  /**
   * The same page whatever the name, the link queued after the answer is sent (SECURITY.md, "What we defend", account
   * enumeration), as "forgot password" does; requests count against the sign-in's limits.
   */
  private async recover(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const ctx = await this.interactions.formContext(req, interaction, 'passkey-recovery');
    const loginName = String(req.body.loginName ?? '').trim();
    const ip = ipOf(req);
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      res.status(429).set('Retry-After', String(retryAfter));
      return this.interactions.render(res, () =>
        passkeyRecoveryPage(ctx, loginName, backTo(interaction.uid), ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60))),
      );
    }
    this.interactions.render(res, () => recoveryRequestedPage(ctx.locale, ctx.t, backTo(interaction.uid)));
    const ipHash = this.rateLimiter.ipHash(ip);
    setImmediate(() => {
      this.loginUsers
        .find(loginName)
        .then((user) => this.links.requestReset(user?.id, ipHash))
        .catch((error: unknown) => this.logger.root.error(`passkey recovery request failed: ${errorMessage(error)}`));
    });
  }

  /** The link's page: a new passkey, with a recovery code first when recovering an account that has some. */
  async show(req: Request, res: Response, purpose: LinkPurpose, code: string, holder: PasskeyLinkHolder, error?: string): Promise<void> {
    const locale = localeOf(req, holder.locale);
    const { passkeys, recoveryCodes } = await this.factors.summary(holder.id);
    const user = { id: holder.id, loginName: holder.loginName, displayName: holder.loginName };
    const options = await registrationOptions(this.pages.rp, user, this.pages.challenges.issue(linkCeremony(code), 'register'), passkeys);
    const link = { action: ACCOUNT_LINK_PATHS[purpose], code, loginName: holder.loginName, askRecoveryCode: askRecoveryCode(purpose, recoveryCodes) };
    this.interactions.render(res, () => passkeyLinkPage(locale, messages(locale), link, options, error));
  }

  /**
   * The link's form: the recovery code (when asked) is used, the passkey verified against the challenge of this
   * link, then the link used and the passkey stored in place of the earlier ones, the person's sessions and tokens
   * ended, together (AccountLinksService.enrolPasskey). A person without recovery codes gets new ones, shown once.
   */
  async follow(req: Request, res: Response, purpose: LinkPurpose, code: string, holder: PasskeyLinkHolder): Promise<void> {
    const t = messages(localeOf(req, holder.locale));
    const again = (status: number, error: string) => {
      res.status(status);
      return this.show(req, res, purpose, code, holder, error);
    };
    const response = parseJson<RegistrationResponseJSON>(req.body.response);
    const passkey = response ? await verifyRegistration(this.pages.rp, response, this.pages.challenges.checker(linkCeremony(code), 'register')) : undefined;
    if (!passkey) return again(400, t.passkeyRefused);
    const owner = { id: holder.id, orgId: holder.orgId };
    const source = { clientIpHash: this.rateLimiter.ipHash(ipOf(req)) };
    const { recoveryCodes } = await this.factors.summary(holder.id);
    if (askRecoveryCode(purpose, recoveryCodes)) {
      const checked = await this.factors.checkRecoveryCode(owner, String(req.body.recoveryCode ?? ''), source);
      if (!checked.ok) return again(401, t.invalidCode);
    }
    let enrolled: { codes: string[]; replaced: boolean };
    try {
      enrolled = await this.links.enrolPasskey(code, purpose, async (manager) => {
        const { removed } = await this.factors.replacePasskeysIn(manager, owner, passkey);
        return { codes: recoveryCodes ? [] : await this.factors.newRecoveryCodesIn(manager, owner), replaced: removed > 0 };
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return again(409, t.passkeyRefused);
    }
    const locale = localeOf(req, holder.locale);
    this.interactions.render(res, () => passkeyReadyPage(locale, messages(locale), holder.loginName, enrolled.codes, enrolled.replaced));
  }
}

/** A recovery (a reset link) asks for a recovery code where the account has one left; an invitation never does. */
function askRecoveryCode(purpose: LinkPurpose, hasRecoveryCodes: boolean): boolean {
  return purpose === 'password_reset' && hasRecoveryCodes;
}

/** What the link's WebAuthn challenge is bound to, in place of a sign-in's interaction. */
function linkCeremony(code: string): string {
  return `link:${code}`;
}

function backTo(uid: string): string {
  return `${LOGIN_UI_PREFIX}/${uid}?form=login`;
}

/** The user's preferred language where it is one of the UI's, else the browser's. */
function localeOf(req: Request, preferred: string | null | undefined): Locale {
  return chooseLocale(preferred?.toLowerCase().split(/[-_]/)[0], req.headers['accept-language']);
}
