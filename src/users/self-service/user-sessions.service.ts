import { Inject, Injectable, Optional } from '@nestjs/common';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserSession, UserTokens } from '../../common/auth/user-tokens.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { UserAccess } from '../acting/user-access.service.js';
import { UserDirectory } from '../user-directory.service.js';

/**
 * A user's browser sessions (docs/mail.md, "Sessions"; the account page's "sessions"): listed by
 * their public id, ended one at a time under the acting rule (SECURITY.md), as a sign-out ends them (the session and the access
 * tokens it holds; an `offline_access` refresh token stays revocable on its own).
 */
@Injectable()
export class UserSessionsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly directory: UserDirectory,
    @Optional() @Inject(USER_TOKENS) private readonly tokens?: UserTokens,
  ) {}

  async list(orgId: string, userId: string): Promise<UserSession[]> {
    await this.directory.get(orgId, userId);
    return this.tokens ? this.tokens.sessions(userId) : [];
  }

  end(editorUserId: string | null, orgId: string, userId: string, sessionId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      if (!(await this.tokens?.endSession(manager, user.id, sessionId))) throw DomainError.notFound('session');
      await this.events.push(manager, {
        type: 'session.terminated',
        aggregateType: 'session',
        aggregateId: sessionId,
        resourceOwner: user.orgId,
        editorUserId,
        payload: { userId: user.id, reason: editorUserId === user.id ? 'self_service' : 'administrator' },
      });
    });
  }
}
