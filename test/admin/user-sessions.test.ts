import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';
import { createHuman, postForm, PASSWORD, orgWithApp } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';

const RP = 'http://127.0.0.1:65530';

/**
 * docs/mail.md, "Sessions": the management API lists a person's sign-in sessions by their public id and ends
 * one as a sign-out would (its access tokens go; an offline refresh token stays revocable on its own).
 */
describe('sessions per user', () => {
  const svc = useService();
  let orgId: string;
  let app: OidcApp;
  let manager: { userId: string; token: string };

  before(async () => {
    ({ orgId, manager, app } = await orgWithApp(svc));
  });

  const path = (userId: string, sessionId = '') => `/management/v1/orgs/${orgId}/users/${userId}/sessions${sessionId ? `/${sessionId}` : ''}`;
  const list = async (userId: string) => {
    const res = await svc.api('GET', path(userId), { token: manager.token });
    assert.equal(res.status, 200, res.text);
    return res.body.sessions as { sessionId: string; signedInAt: string; lastUsedAt: string; expiresAt: string; applications: string[]; amr: string[] }[];
  };
  const login = (loginName: string, extra: Record<string, string> = {}, browser?: Awaited<ReturnType<typeof signIn>>['browser']) =>
    signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName,
      password: PASSWORD,
      scope: 'openid offline_access',
      extra,
      browser,
    });
  const introspect = async (token: string) =>
    (await postForm(svc, '/oauth/v2/introspect', { token }, { id: app.clientId, secret: app.clientSecret! })).body.active as boolean;

  it('lists each browser’s session, never its cookie, and ends one as a sign-out would', async () => {
    const user = await createHuman(svc, orgId);
    const first = await login(user.userName);
    const second = await login(user.userName);
    assert.ok(first.tokens && second.tokens);
    const sessions = await list(user.userId);
    assert.equal(sessions.length, 2);
    for (const s of sessions) {
      assert.deepEqual(s.applications, [app.clientId]);
      assert.deepEqual(s.amr, ['pwd']);
      assert.ok(Date.parse(s.signedInAt) <= Date.now() && Date.parse(s.expiresAt) > Date.now());
      assert.ok(
        Date.parse(s.signedInAt) <= Date.parse(s.lastUsedAt) && Date.parse(s.lastUsedAt) <= Date.now(),
        `last use between sign-in and now: ${JSON.stringify(s)}`,
      );
    }
    const cookies = [...first.browser.cookies.values(), ...second.browser.cookies.values()];
    assert.ok(
      sessions.every((s) => !cookies.includes(s.sessionId)),
      'the public id is not a cookie value',
    );

    // Which browser holds which session is not visible from outside (both signed in within the same second): end
    // one, and exactly one browser is signed out, with its access token revoked and its refresh token kept.
    const [ended, kept] = sessions;
    assert.equal((await svc.api('DELETE', path(user.userId, ended.sessionId), { token: manager.token })).status, 204);
    assert.deepEqual(
      (await list(user.userId)).map((s) => s.sessionId),
      [kept.sessionId],
    );
    const active = [await introspect(first.tokens.access_token), await introspect(second.tokens.access_token)];
    assert.deepEqual([...active].sort(), [false, true], `exactly one session's access token is revoked: ${active}`);
    const [out, still] = active[0] ? [second, first] : [first, second];
    const refreshed = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: out.tokens!.refresh_token! },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(refreshed.status, 200, 'an offline_access refresh token outlives the session, as at sign-out');
    assert.equal((await login(user.userName, { prompt: 'none' }, out.browser)).error, 'login_required', 'that browser is signed out');
    assert.ok((await login(user.userName, { prompt: 'none' }, still.browser)).tokens, 'the other is still signed in');

    const [event] = await searchEvents(svc, { event_types: ['session.terminated'], aggregate_id: ended.sessionId });
    assert.deepEqual(event.payload, { userId: user.userId, reason: 'administrator' });
    assert.equal(event.editor.userId, manager.userId);
  });

  it('answers 404 for an unknown session, another user’s session or a user of another organization; nothing ends', async () => {
    const user = await createHuman(svc, orgId);
    const other = await createHuman(svc, orgId);
    await login(other.userName);
    const [othersSession] = await list(other.userId);
    assert.equal((await svc.api('DELETE', path(user.userId, 'no-such-session'), { token: manager.token })).status, 404);
    assert.equal((await svc.api('DELETE', path(user.userId, othersSession.sessionId), { token: manager.token })).status, 404);
    const stranger = await createCaller(svc, (await createOrg(svc)).id, { org: ['ORG_USER_MANAGER'] });
    assert.equal((await svc.api('GET', path(other.userId), { token: stranger.token })).status, 404);
    assert.equal((await svc.api('DELETE', path(other.userId, othersSession.sessionId), { token: stranger.token })).status, 404);
    assert.equal((await list(other.userId)).length, 1, 'still there');
  });
});
