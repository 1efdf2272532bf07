import Provider from 'oidc-provider';

/**
 * Stores the browser's session before a device code's approval becomes visible to the polling device.
 *
 * At `device_resume` oidc-provider saves the approval (the code's `accountId`, `grantId` and `sessionUid`) inside the
 * route, and the session that now names that grant only when the request ends (lib/shared/session.js). A device code
 * that expires with the session is found only while the session names its grant (lib/models/token_helpers.js,
 * `checkSessionBinding`), so a poll arriving between the two writes was answered `invalid_grant` ("device code not
 * found") and the device gave up on a sign-in that had succeeded. Saved here first, the session already holds the
 * grant when the approval is written; the request's own save at its end still runs (it sets the cookie), so the session
 * stays marked as changed.
 */
export async function storeSessionBeforeApproval(sessionTtlSeconds: number): Promise<void> {
  const ctx = Provider.ctx;
  if (ctx?.oidc?.route !== 'device_resume') return;
  const session = ctx.oidc.session;
  if (!session || session.destroyed) return;
  await session.save(sessionTtlSeconds);
  session.touched = true;
}
