import type { OidcContext } from 'oidc-provider';
import type { BrowserSessionSteps } from '../../common/auth/browser-session-steps.js';
import { OIDC_ROUTES } from './oidc.routes.js';

interface SessionFacts {
  uid?: string;
  accountId?: string;
  destroyed?: boolean;
}

/**
 * What the provider did to the browser's login session, told to BrowserSessionSteps once the provider answered:
 * a sign-in that made or renewed the session (the resume of a completed interaction), and a sign-out (`logout=yes`
 * confirmed at end_session) whose redirect another step may send through an upstream first (docs/federation.md,
 * "Single logout"). Ending a session only to sign in as another account (its redirect goes back to the
 * authorization) is not a sign-out the browser asked for.
 */
export async function afterSessionChanges(ctx: OidcContext, steps: BrowserSessionSteps, publicUrl: string): Promise<void> {
  const oidc = ctx.oidc as
    | {
        route?: string;
        session?: SessionFacts;
        result?: { login?: { accountId?: string } };
        entities?: { Interaction?: { uid?: string } };
        params?: Record<string, unknown>;
      }
    | undefined;
  if (!oidc) return;
  const session = oidc.session;
  if (oidc.route === 'resume' && oidc.result?.login?.accountId && session?.uid && oidc.entities?.Interaction?.uid) {
    await steps.started({ sessionUid: session.uid, interactionUid: oidc.entities.Interaction.uid, userId: oidc.result.login.accountId });
    return;
  }
  if (ctx.method !== 'POST' || ctx.path !== `${OIDC_ROUTES.end_session}/confirm` || ctx.status !== 303 || !oidc.params?.logout) return;
  const next = String(ctx.response.get('Location') ?? '');
  if (!session?.uid || !session.accountId || !next || next.startsWith(`${publicUrl}${OIDC_ROUTES.authorization}/`)) return;
  const location = await steps.afterSignOut({ sessionUid: session.uid, userId: session.accountId }, next);
  if (location !== next) ctx.redirect(location);
}
