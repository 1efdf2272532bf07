import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { registrationProblems } from '../users/registration.rules.js';
import { UsersService } from '../users/users.service.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUsers } from './login-users.js';
import { registerPage } from './login.views.js';
import { RegistrationGate } from './registration-gate.js';
import { ipOf } from './sign-in-attempts.js';
import { SignInFlow } from './sign-in-flow.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';

/**
 * Self-registration (OpenID Connect Prompt Create 1.0) into the client's organization, where its login policy
 * offers it: rate-limited per client IP like password checks (every attempt counts, so names cannot be probed at
 * speed) and validated like the management API, a little stricter since anyone may register
 * (users/registration.rules.ts). A refused attempt creates nothing.
 */
@Injectable()
export class RegistrationUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly registration: RegistrationGate,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly users: UsersService,
    private readonly loginUsers: LoginUsers,
    private readonly flow: SignInFlow,
  ) {}

  routes(router: Router): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/register`,
      form,
      this.interactions.wrap((req, res) => this.register(req, res)),
    );
  }

  /** The registration form (prompt=create, or the login page's link), where the organization offers it. */
  async show(req: Request, res: Response, interaction: Interaction): Promise<void> {
    if (!(await this.registration.offered(interaction)).allowed) return this.closed(req, res);
    const ctx = await this.interactions.formContext(req, interaction, 'register');
    return this.interactions.render(res, () => registerPage(ctx, {}));
  }

  private async register(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const { orgId, allowed } = await this.registration.offered(interaction);
    if (!orgId || !allowed) return this.closed(req, res);
    const ctx = await this.interactions.formContext(req, interaction, 'register');
    const values = Object.fromEntries(['firstName', 'lastName', 'email', 'userName'].map((k) => [k, String(req.body[k] ?? '').trim()]));
    const retryAfter = await this.rateLimiter.reserve(ipOf(req));
    if (retryAfter !== undefined) {
      res.status(429).set('Retry-After', String(retryAfter));
      return this.interactions.render(res, () => registerPage(ctx, values, ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60))));
    }
    const password = String(req.body.password ?? '');
    const problems = registrationProblems({ userName: values.userName, firstName: values.firstName, lastName: values.lastName, email: values.email, password });
    try {
      if (problems.length > 0) throw DomainError.invalid('the registration is invalid', problems);
      const created = await this.users.createHuman(null, orgId, {
        userName: values.userName,
        firstName: values.firstName,
        lastName: values.lastName,
        email: values.email,
        password,
      });
      const user = await this.loginUsers.findById(created.id);
      if (!user) throw DomainError.notFound('user');
      // A new user enrols a second factor at once where the organization requires one.
      return this.flow.afterFirstFactor(req, res, interaction, user, ['pwd']);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(400);
      const detail = [error.message, ...error.details.map((d) => d.message)].join(' ');
      return this.interactions.render(res, () => registerPage(ctx, values, `${ctx.t.registrationFailed} ${detail}`));
    }
  }

  private closed(req: Request, res: Response): Promise<void> {
    return this.interactions.showError(req, res, 403, 'access_denied', 'this organization does not offer registration');
  }
}
