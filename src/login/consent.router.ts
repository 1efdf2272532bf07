import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { CONSENT_PROTOCOL } from './consent-protocol.js';
import type { ConsentProtocol } from './consent-protocol.js';
import { consentPage } from './consent.views.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { SignInFlow } from './sign-in-flow.js';
import { SIGN_IN_PROTOCOL } from './sign-in-protocol.js';
import type { SignInProtocol } from './sign-in-protocol.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';

/** The `error_description` of access_denied (RFC 6749 §4.1.2.1): for the client's developer, so in English. */
const CONSENT_DENIED = 'the user denied access';

/**
 * The consent step (docs/agents.md, "Consent and connected agents"): an agent client's request is shown and the person
 * allows it (remembered, then the code is issued) or denies it (access_denied to the client, OIDC Core §3.1.2.6).
 * A client registered by an administrator asks nothing, so its consent prompt finishes at once.
 */
@Injectable()
export class ConsentUi {
  constructor(
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    @Inject(CONSENT_PROTOCOL) private readonly consent: ConsentProtocol,
    private readonly interactions: LoginInteractions,
    private readonly flow: SignInFlow,
  ) {}

  routes(router: Router): void {
    this.interactions.postSteps(router, {
      consent: (req, res, interaction) => this.allow(req, res, interaction),
      'consent-deny': (req, res, interaction) => this.deny(req, res, interaction),
    });
  }

  async show(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const client = await this.protocol.clientOf(interaction);
    const request = await this.consent.asked(interaction, client);
    if (!request) return this.flow.finish(req, res, interaction);
    if (request.refused) return this.flow.refuse(req, res, interaction, 403, 'access_denied', (t) => t.consentRefused, client);
    const ctx = await this.interactions.formContext(req, interaction, 'consent', client);
    this.interactions.render(res, () => consentPage(ctx, `${LOGIN_UI_PREFIX}/${interaction.uid}/consent-deny`, request));
  }

  private async allow(req: Request, res: Response, interaction: Interaction): Promise<void> {
    if (interaction.prompt.name !== 'consent') return this.flow.restart(res, interaction);
    // The client is found once and handed on, to the consent step and to the refusal page.
    const client = await this.protocol.clientOf(interaction);
    const answer = await this.consent.allow(interaction, client);
    if (answer === 'refused') return this.flow.refuse(req, res, interaction, 403, 'access_denied', (t) => t.consentRefused, client);
    return this.flow.finish(req, res, interaction);
  }

  private async deny(req: Request, res: Response, interaction: Interaction): Promise<void> {
    if (interaction.prompt.name !== 'consent') return this.flow.restart(res, interaction);
    await this.protocol.deny(interaction, CONSENT_DENIED);
    res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
  }
}
