import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountPageRenderer, done } from './account-page.renderer.js';
import { ACCOUNT_PROTOCOL } from './account-protocol.js';
import type { AccountProtocol } from './account-protocol.js';
import type { AccountForm, Visit } from './account-visits.js';

/** The account page's connected apps and agents: Revoke ends the consent and every token of that client at once. */
@Injectable()
export class AgentChanges {
  constructor(
    private readonly renderer: AccountPageRenderer,
    @Inject(ACCOUNT_PROTOCOL) private readonly protocol: AccountProtocol,
  ) {}

  forms(): AccountForm[] {
    return [['agents/revoke', false, (req, res, v) => this.revoke(req, res, v)]];
  }

  private async revoke(req: Request, res: Response, visit: Visit): Promise<void> {
    const clientId = String(req.body.clientId ?? '');
    if (!(await this.protocol.revokeAgent({ id: visit.user.id, orgId: visit.user.orgId }, clientId)))
      return this.renderer.refuse(res, visit, 404, visit.t.invalidForm);
    done(res, 'agent-revoked');
  }
}
