import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { UserSessionsService } from '../users/self-service/user-sessions.service.js';
import { AccountPageRenderer, done } from './account-page.renderer.js';
import { AgentChanges } from './agent-changes.js';
import type { AccountForm, Visit } from './account-visits.js';

/**
 * The account page's lists of who is signed in as the user: its sessions (end one, or every other) and its connected
 * apps and agents (revoke one: agent-changes.ts).
 */
@Injectable()
export class SessionChanges {
  constructor(
    private readonly renderer: AccountPageRenderer,
    private readonly userSessions: UserSessionsService,
    private readonly agents: AgentChanges,
  ) {}

  forms(): AccountForm[] {
    return [
      ['sessions/end', false, (req, res, v) => this.endSession(req, res, v)],
      ['sessions/end-others', false, (req, res, v) => this.endOtherSessions(req, res, v)],
      ...this.agents.forms(),
    ];
  }

  private async endSession(req: Request, res: Response, visit: Visit): Promise<void> {
    const sessionId = String(req.body.sessionId ?? '');
    // This session ends by signing out (one confirmation, at the provider), not from its own list.
    if (sessionId === visit.session.uid) return this.renderer.refuse(res, visit, 400, visit.t.invalidForm);
    await this.userSessions.end(visit.user.id, visit.user.orgId, visit.user.id, sessionId);
    done(res, 'session-ended');
  }

  private async endOtherSessions(_req: Request, res: Response, visit: Visit): Promise<void> {
    for (const s of await this.userSessions.list(visit.user.orgId, visit.user.id)) {
      if (s.sessionId === visit.session.uid) continue;
      await this.userSessions.end(visit.user.id, visit.user.orgId, visit.user.id, s.sessionId).catch((error: unknown) => {
        // Ended meanwhile (another tab, an administrator): what was asked holds.
        if (!(error instanceof DomainError)) throw error;
      });
    }
    done(res, 'others-ended');
  }
}
