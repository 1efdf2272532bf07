import { Injectable } from '@nestjs/common';

/** A login session a sign-in just made or renewed in the browser: its public uid, the interaction that signed in, the user. */
export interface StartedSession {
  sessionUid: string;
  interactionUid: string;
  userId: string;
}

/** A login session the browser just signed out of (RP-initiated logout), and where the browser goes next. */
export interface SignedOutSession {
  sessionUid: string;
  userId: string;
}

type StartListener = (started: StartedSession) => Promise<void>;
/** Another place for the browser to go first (it must come back to `next`), or undefined. */
type SignOutStep = (ended: SignedOutSession, next: string) => Promise<string | undefined>;

/**
 * The browser's side of login sessions, told by the protocol that keeps them (src/oidc) to the modules that need them
 * without importing it: a sign-in that made a session (federation ties an upstream SAML sign-in to it), and a
 * sign-out that may send the browser through an upstream's single logout before it goes on (docs/federation.md,
 * "Single logout").
 */
@Injectable()
export class BrowserSessionSteps {
  private readonly starts: StartListener[] = [];
  private readonly signOuts: SignOutStep[] = [];

  onStart(listener: StartListener): void {
    this.starts.push(listener);
  }

  onSignOut(step: SignOutStep): void {
    this.signOuts.push(step);
  }

  async started(started: StartedSession): Promise<void> {
    for (const listener of this.starts) await listener(started);
  }

  /** Where the browser goes after a sign-out: the first step that needs it elsewhere, else `next`. */
  async afterSignOut(ended: SignedOutSession, next: string): Promise<string> {
    for (const step of this.signOuts) {
      const elsewhere = await step(ended, next);
      if (elsewhere) return elsewhere;
    }
    return next;
  }
}
