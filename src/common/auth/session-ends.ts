import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Sessions of a user that just ended: one (`sessionUid`), or all but `keepSession` (a password change keeps the caller's). */
export interface EndedSessions {
  userId: string;
  sessionUid?: string;
  keepSession?: string;
  /** What the ended sessions had signed in to, read before they were removed: back-channel logout tells those clients. */
  signIns: EndedSignIn[];
}

/** A client a session had signed in to, with the session's id for that client (the ID tokens' `sid`). */
export interface EndedSignIn {
  sessionUid: string;
  clientId: string;
  sid?: string;
}

type Listener = (manager: EntityManager, ended: EndedSessions) => Promise<void>;

/**
 * Tells other modules, inside the transaction that ends them, that sessions ended (a sign-out, an administrator's
 * termination, a user deactivated, locked, removed or given a new password): the SAML IdP then logs the user out of
 * its service providers (docs/saml.md, "Single logout"), back-channel logout its OIDC clients (docs/oauth-profiles.md). The module that ends sessions (src/oidc) does not know who listens.
 */
@Injectable()
export class SessionEnds {
  private readonly listeners: Listener[] = [];

  listen(listener: Listener): void {
    this.listeners.push(listener);
  }

  async ended(manager: EntityManager, ended: EndedSessions): Promise<void> {
    for (const listener of this.listeners) await listener(manager, ended);
  }
}
