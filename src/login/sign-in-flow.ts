import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApplicationEntry, signInDoor } from './application-entry.js';
import { resourcesOf } from './resource-entry.js';
import type { EntryClient } from './application-entry.js';
import { PasswordChecks } from '../users/password-checks.service.js';
import { reportedAuthentication } from './authentication-methods.js';
import { KnownAccounts } from './known-accounts.js';
import type { KnownAccount } from './known-accounts.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction, LoginResult } from './login-interactions.js';
import type { LoginUser } from './login-users.js';
import { errorPage } from './login.views.js';
import type { Messages } from './messages.js';
import { mayServe } from './client-kind.js';
import { FOREIGN_ORGANIZATION_REFUSAL } from './organization-boundary.js';
import { OwedActions } from './owed-actions.js';
import { PENDING, signingIn } from './pending-sign-in.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { SecondStepChoice } from './second-step-choice.js';
import { SIGN_IN_PROTOCOL } from './sign-in-protocol.js';
import type { SignInProtocol } from './sign-in-protocol.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';

/**
 * One sign-in, whichever door it came in by (password, passkey, registration, an upstream identity provider):
 * after the first factor the organization's boundary and login policy decide what follows (docs/product-rules.md,
 * "Multi-factor sign-in"), the steps the account owes come next, and the sign-in ends in one of two ways: `finish`
 * hands the protocol who signed in and how; `refuse` ends it for good, the same way at every door.
 */
@Injectable()
export class SignInFlow {
  constructor(
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    private readonly interactions: LoginInteractions,
    private readonly pages: SecondFactorPages,
    private readonly secondStep: SecondStepChoice,
    private readonly owed: OwedActions,
    private readonly checks: PasswordChecks,
    private readonly known: KnownAccounts,
    private readonly entry: ApplicationEntry,
  ) {}

  /**
   * After a first factor (a password; a passkey without user verification; an upstream's identity): refuses a user
   * the client may not serve (SECURITY.md, "Sign-in stays inside the organization") or whom its application does not
   * admit (docs/product-rules.md, "Application access"), else completes the sign-in, or keeps it pending and sends the
   * browser to the second step the policy and the user's factors ask (second-step-choice.ts).
   */
  async afterFirstFactor(req: Request, res: Response, interaction: Interaction, user: LoginUser, methods: string[], upstream: string[] = []): Promise<void> {
    const client: EntryClient | undefined = await this.protocol.clientOf(interaction);
    if (!mayServe(client, user)) return this.refuse(req, res, interaction, 403, 'access_denied', FOREIGN_ORGANIZATION_REFUSAL, client);
    if (await this.entry.refuses(client, user, signInDoor(client, interaction))) return this.refuseEntry(req, res, interaction, client);
    const pending = signingIn(user, methods, upstream);
    const step = await this.secondStep.after(interaction, user, methods, pending);
    return step ? this.toStep(req, res, interaction, step) : this.complete(req, res, interaction, pending);
  }

  /** The client the interaction signs in for. */
  clientOf(interaction: Interaction): Promise<EntryClient | undefined> {
    return this.protocol.clientOf(interaction);
  }

  /**
   * The API application of the requested resource refused the session's user (interaction.policy.ts decided it): the
   * page names it, with no way back (an API application has no start page), in the client's brand; the client itself
   * when the refusal came from its project's audience.
   */
  async refuseResource(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const client: EntryClient | undefined = await this.protocol.clientOf(interaction);
    const userId = interaction.session?.accountId;
    const api = userId ? await this.entry.refusingResource(resourcesOf(interaction.params.resource), userId) : undefined;
    if (!api) return this.refuseEntry(req, res, interaction, client);
    return this.refuse(req, res, interaction, 403, 'access_denied', (t) => t.appAccessDenied(api.name), { ...client, portcullis_home_url: undefined });
  }

  /**
   * The application admits only users granted to it, and this one is not (docs/product-rules.md, "Application
   * access"): the 403 page names the application, and nothing is issued. The door that found it recorded it.
   */
  async refuseEntry(req: Request, res: Response, interaction: Interaction, client: EntryClient | undefined): Promise<void> {
    const name = client?.clientName ?? '';
    return this.refuse(req, res, interaction, 403, 'access_denied', (t) => t.appAccessDenied(name), client);
  }

  /** After a form post, a redirect to the step's page (reloading it posts nothing again); on that page itself, the step. */
  async toStep(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<void> {
    await this.interactions.keep(interaction, PENDING, pending);
    if (req.method === 'GET') return this.pages.render(req, res, interaction, pending);
    this.restart(res, interaction);
  }

  /** A step posted out of order (or after the interaction moved on): the current step is shown again. */
  restart(res: Response, interaction: Interaction): void {
    res.status(303).location(`${LOGIN_UI_PREFIX}/${interaction.uid}`).set('Content-Length', '0').end();
  }

  /**
   * Every factor the sign-in requires is done (`methods` the last step's): what the account owes comes first; then
   * the failed-check count starts over, and the protocol gets the result.
   */
  async complete(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, methods: string[] = []): Promise<void> {
    const owed = await this.owed.of(interaction, { ...pending, methods: [...pending.methods, ...methods] });
    if (owed && 'refused' in owed) return this.refuse(req, res, interaction, 403, 'access_denied', owed.refused);
    if (owed) return this.toStep(req, res, interaction, owed);
    await this.checks.signInCompleted(pending.userId);
    const { amr, acr } = reportedAuthentication([pending.methods, methods], pending.upstream);
    const ts = Math.floor(Date.now() / 1000);
    return this.finish(
      req,
      res,
      interaction,
      { accountId: pending.userId, ts, amr, acr },
      { userId: pending.userId, loginName: pending.loginName, authTime: ts },
    );
  }

  /**
   * Completes the interaction (without `login` when the session's sign-in carries over, e.g. consent), remembers the
   * account in this browser, and sends the browser back to the protocol.
   */
  async finish(req: Request, res: Response, interaction: Interaction, login?: LoginResult, account?: KnownAccount): Promise<void> {
    if (account) this.known.remember(req, res, account);
    await this.protocol.complete(interaction, login);
    res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
  }

  /**
   * Ends the sign-in for good, whichever door it came in by. A device flow's sign-in ends with access_denied through
   * the protocol (OIDC Core §3.1.2.6), so the device hears it at its next poll (RFC 8628 §3.5) and the user sees the
   * device's denied page; any other shows the refusal, and the application hears nothing until the user goes back.
   * `client`: the one this request found already, handed on (to the page's brand too) rather than looked up again.
   */
  async refuse(
    req: Request,
    res: Response,
    interaction: Interaction,
    status: number,
    error: string,
    describe: string | ((t: Messages) => string),
    client?: EntryClient,
  ): Promise<void> {
    const found: EntryClient | undefined = client ?? (await this.protocol.clientOf(interaction));
    const ctx = await this.interactions.formContext(req, interaction, 'login', found);
    const description = typeof describe === 'string' ? describe : describe(ctx.t);
    if (interaction.deviceCode) {
      await this.protocol.deny(interaction, description);
      res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
      return;
    }
    // Going back and trying again cannot help: the way back is the application's own start page, if it named one.
    const homeUrl = found?.portcullis_home_url;
    res.status(status);
    this.interactions.render(res, () => errorPage(ctx.locale, ctx.t, error, description, { homeUrl }));
  }
}
