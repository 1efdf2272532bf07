import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { eventually } from '../faults/faults.helpers.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { createHuman, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { logOut } from './support/log-out.js';
import { LogoutReceiver } from './support/logout-receiver.js';
import { openidClientSignIn } from './support/sign-in.js';

const RP = 'http://127.0.0.1:65530';
const REDIRECT = `${RP}/cb`;
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface BclApp extends OidcApp {
  logoutUri: string;
}

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oauth-profiles.md, "Back-channel logout"): openid-client 6 signs a user in to applications registered
 * with a `backchannelLogoutUri` on a receiver of this test; each way a session ends — RP-initiated logout, an
 * administrator or the user ending it, deactivation, lock, deletion — brings each such application one Logout Token,
 * verified with jose against the service's JWKS. The receiver is on loopback, so this service allows private networks
 * (backchannel-logout-private.test.ts has the service that does not).
 */
describe('back-channel logout: a logout token for every way a session ends', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '100', BACKCHANNEL_LOGOUT_POLL_MS: '200' });
  let receiver: LogoutReceiver;
  let jwks: ReturnType<typeof createRemoteJWKSet>;
  let discovery: Record<string, unknown>;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let manager: { userId: string; token: string };

  before(async () => {
    receiver = await LogoutReceiver.start();
    discovery = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as Record<string, unknown>;
    jwks = createRemoteJWKSet(new URL(String(discovery.jwks_uri)));
    const org = await createOrg(svc);
    project = await createProject(svc, org.id);
    project.primaryDomain = org.primaryDomain;
    manager = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
  });
  after(() => receiver?.close());

  async function createApp(
    settings: { backchannelLogoutUri?: string | null; backchannelLogoutSessionRequired?: boolean; subjectType?: 'pairwise' } = {},
  ): Promise<BclApp> {
    const logoutUri = settings.backchannelLogoutUri === null ? null : (settings.backchannelLogoutUri ?? receiver.endpoint());
    const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: unique('app'),
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: [`${RP}/logged-out`],
        responseTypes: ['code'],
        grantTypes: ['authorization_code', 'refresh_token'],
        authMethod: 'client_secret_basic',
        devMode: true,
        ...settings,
        backchannelLogoutUri: logoutUri,
      },
    });
    assert.equal(res.status, 201, res.text);
    return { ...res.body, projectId: project.projectId, orgId: project.orgId, logoutUri: logoutUri ?? '' };
  }

  /** openid-client's code flow, the login UI driven over HTTP; a browser with a session signs in without the form. */
  async function signIn(app: OidcApp, user: { userName: string }, browser = new LoginClient(svc.url)) {
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await openidClientSignIn(svc, config, { redirectUri: REDIRECT, loginName: `${user.userName}@${project.primaryDomain}`, browser });
    const claims = tokens.claims()!;
    assert.equal(typeof claims.sid, 'string', 'the ID token names its session (sid)');
    return { browser, tokens, sid: claims.sid as string, sub: claims.sub };
  }

  /** OIDC BCL §2.6's checks of a Logout Token, with jose against the published keys. */
  async function verified(token: string, app: OidcApp): Promise<JWTPayload> {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: svc.config.publicUrl,
      audience: app.clientId,
      typ: 'logout+jwt',
      maxTokenAge: '2 min',
    });
    assert.equal(protectedHeader.typ, 'logout+jwt');
    assert.ok(protectedHeader.kid, 'kid names the signing key');
    assert.deepEqual(payload.events, { [EVENT]: {} });
    assert.equal(payload.nonce, undefined, '§2.4: a nonce is prohibited');
    assert.equal(typeof payload.jti, 'string');
    assert.ok(
      typeof payload.iat === 'number' && typeof payload.exp === 'number' && payload.exp - payload.iat <= 120,
      `short-lived: ${payload.iat} → ${payload.exp}`,
    );
    return payload;
  }

  /** The logout tokens the receiver got for this application, once `count` arrived and every row is delivered. */
  async function logoutTokens(app: BclApp, count: number): Promise<JWTPayload[]> {
    await eventually(`${count} logout token(s) at ${app.logoutUri}`, async () => (receiver.at(app.logoutUri).length >= count ? true : undefined));
    // Delivered means recorded as sent: no row of this application is left to send, so nothing more comes.
    await eventually('every logout of the application delivered', async () => {
      const rows = (await svc.dataSource.query('SELECT status FROM backchannel_logouts WHERE app_id = ?', [app.appId])) as { status: string }[];
      return rows.length === count && rows.every((r) => r.status === 'sent') ? true : undefined;
    });
    const received = receiver.at(app.logoutUri);
    assert.equal(received.length, count, 'each logout token once');
    for (const r of received) assert.equal(r.contentType, 'application/x-www-form-urlencoded');
    return Promise.all(received.map((r) => verified(r.logoutToken, app)));
  }

  const userPath = (userId: string, rest = '') => `/management/v1/orgs/${project.orgId}/users/${userId}${rest}`;

  it('discovery advertises back-channel logout with sessions; the client metadata reaches oidc-provider', async () => {
    assert.equal(discovery.backchannel_logout_supported, true);
    assert.equal(discovery.backchannel_logout_session_supported, true);
    const app = await createApp({ backchannelLogoutSessionRequired: true });
    const read = await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, { token: svc.adminToken });
    assert.equal(read.body.backchannelLogoutUri, app.logoutUri, read.text);
    assert.equal(read.body.backchannelLogoutSessionRequired, true);
  });

  it('RP-initiated logout: each application of the session with a URI gets one token with its sid and sub; oidc-provider sends none itself', async () => {
    const user = await createHuman(svc, project.orgId);
    const required = await createApp({ backchannelLogoutSessionRequired: true });
    const plain = await createApp();
    const none = await createApp({ backchannelLogoutUri: null });
    const before = receiver.received.length;
    const first = await signIn(required, user);
    const second = await signIn(plain, user, first.browser);
    await signIn(none, user, first.browser);
    assert.notEqual(first.sid, second.sid, 'a sid per client (§2.1)');

    await logOut(first.browser, required.clientId);
    const [forRequired] = await logoutTokens(required, 1);
    assert.equal(forRequired.sid, first.sid);
    assert.equal(forRequired.sub, user.userId);
    const [forPlain] = await logoutTokens(plain, 1);
    assert.equal(forPlain.sid, second.sid);
    assert.equal(forPlain.sub, user.userId);
    assert.notEqual(forRequired.jti, forPlain.jti);
    assert.equal(receiver.received.length, before + 2, 'an application without a URI gets nothing');
  });

  it('a pairwise application (OIDC Core §8): its logout token names the user by the pairwise sub its ID token had', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp({ subjectType: 'pairwise' });
    const signedIn = await signIn(app, user);
    assert.notEqual(signedIn.sub, user.userId);
    await logOut(signedIn.browser, app.clientId);
    const [token] = await logoutTokens(app, 1);
    assert.equal(token!.sub, signedIn.sub);
    assert.equal(token!.sid, signedIn.sid);
  });

  it('a client-only logout (no logout=yes) ends that sign-in alone: only that application gets a token', async () => {
    const user = await createHuman(svc, project.orgId);
    const leaving = await createApp();
    const staying = await createApp();
    const first = await signIn(leaving, user);
    await signIn(staying, user, first.browser);
    await logOut(first.browser, leaving.clientId, false);
    const [token] = await logoutTokens(leaving, 1);
    assert.equal(token.sid, first.sid);
    assert.equal(
      (await svc.dataSource.query('SELECT COUNT(*) AS n FROM backchannel_logouts WHERE app_id = ?', [staying.appId]))[0].n,
      0,
      'nothing owed to the other',
    );
    assert.equal(receiver.at(staying.logoutUri).length, 0);
  });

  it('an administrator ends one session: its applications get a token for that session only', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp({ backchannelLogoutSessionRequired: true });
    const ended = await signIn(app, user);
    const kept = await signIn(app, user);
    const sessions = (await svc.api('GET', userPath(user.userId, '/sessions'), { token: manager.token })).body.sessions as { sessionId: string }[];
    assert.equal(sessions.length, 2);
    // Which public id is whose is not visible from outside: end one, then the token's sid says which it was.
    const res = await svc.api('DELETE', userPath(user.userId, `/sessions/${sessions[0].sessionId}`), { token: manager.token });
    assert.equal(res.status, 204, res.text);
    const [token] = await logoutTokens(app, 1);
    assert.ok([ended.sid, kept.sid].includes(token.sid as string), `the sid of one of the sessions: ${token.sid}`);
    assert.equal(token.sub, user.userId);
  });

  it('the user ends another of its sessions on the account page: that session’s token', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp();
    const mine = await signIn(app, user);
    const other = await signIn(app, user);
    const page = await mine.browser.get('/ui/account');
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const otherSession = /name="sessionId" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(otherSession, 'the other session is listed with its end button');
    const ended = await mine.browser.post('/ui/account/sessions/end', { csrf: csrfOf(page.text), sessionId: otherSession });
    assert.equal(ended.status, 303, ended.text.slice(0, 300));
    const [token] = await logoutTokens(app, 1);
    assert.equal(token.sid, other.sid);
    assert.equal(token.sub, user.userId);
    const [event] = await searchEvents(svc, { event_types: ['session.terminated'], aggregate_id: otherSession });
    assert.equal(event.payload.reason, 'self_service');
  });

  it('deactivation: one token per session of the user, to each application', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp({ backchannelLogoutSessionRequired: true });
    const other = await createApp();
    const one = await signIn(app, user);
    const two = await signIn(app, user);
    const onOther = await signIn(other, user, two.browser);
    const res = await svc.api('POST', userPath(user.userId, '/deactivate'), { token: manager.token, body: {} });
    assert.equal(res.status, 200, res.text);
    const tokens = await logoutTokens(app, 2);
    assert.deepEqual(tokens.map((t) => t.sid).sort(), [one.sid, two.sid].sort());
    const [forOther] = await logoutTokens(other, 1);
    assert.equal(forOther.sid, onOther.sid);
    assert.ok([...tokens, forOther].every((t) => t.sub === user.userId));
  });

  it('lock after too many wrong passwords: the signed-in session’s applications get their token', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp();
    const session = await signIn(app, user);
    const limit = Number((await svc.dataSource.query('SELECT lockout_max_attempts AS n FROM instance'))[0].n);
    assert.ok(limit > 0 && limit < 50, `a lockout limit: ${limit}`);
    for (let i = 0; i < limit; i++) {
      const browser = new LoginClient(svc.url);
      const { uid, csrf } = await browser.startLogin({
        client_id: app.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      });
      const posted = await browser.post(`/ui/login/${uid}/login`, {
        csrf,
        loginName: `${user.userName}@${project.primaryDomain}`,
        password: 'Wrong-Password-1',
      });
      assert.notEqual(posted.status, 303, 'a wrong password is refused');
    }
    assert.equal((await svc.dataSource.query('SELECT state FROM users WHERE id = ?', [user.userId]))[0].state, 'locked');
    const [token] = await logoutTokens(app, 1);
    assert.equal(token.sid, session.sid);
    assert.equal(token.sub, user.userId);
  });

  it('a new password set by an administrator: the sessions it ends get their tokens', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp();
    const session = await signIn(app, user);
    const res = await svc.api('PUT', userPath(user.userId, '/password'), { token: manager.token, body: { password: 'Another-Horse-10' } });
    assert.equal(res.status, 200, res.text);
    const [token] = await logoutTokens(app, 1);
    assert.equal(token.sid, session.sid);
  });

  it('deletion: the token arrives although the user is gone', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp({ backchannelLogoutSessionRequired: true });
    const session = await signIn(app, user);
    const res = await svc.api('DELETE', userPath(user.userId), { token: manager.token });
    assert.ok([200, 204].includes(res.status), res.text);
    const [token] = await logoutTokens(app, 1);
    assert.equal(token.sid, session.sid);
    assert.equal(token.sub, user.userId);
  });

  it('an RP that answers 500 gets the token again (same jti, freshly signed) until it takes it', async () => {
    const user = await createHuman(svc, project.orgId);
    const app = await createApp();
    const path = new URL(app.logoutUri).pathname;
    let refusals = 1;
    const answer = receiver.answer;
    receiver.answer = (p) => (p === path && refusals-- > 0 ? 500 : answer(p));
    try {
      const session = await signIn(app, user);
      await logOut(session.browser, app.clientId);
      await eventually('the retry taken', async () => (receiver.at(app.logoutUri).some((r) => r.answered === 200) ? true : undefined));
      const [refused, taken] = receiver.at(app.logoutUri);
      assert.equal(refused.answered, 500);
      assert.equal(taken.answered, 200);
      const [a, b] = [await verified(refused.logoutToken, app), await verified(taken.logoutToken, app)];
      assert.equal(a.jti, b.jti, 'one logout, one jti');
      assert.equal(b.sid, session.sid);
      const [row] = (await svc.dataSource.query('SELECT status, attempts FROM backchannel_logouts WHERE app_id = ?', [app.appId])) as {
        status: string;
        attempts: unknown;
      }[];
      assert.deepEqual([row.status, Number(row.attempts)], ['sent', 2]);
      assert.equal(decodeProtectedHeader(taken.logoutToken).alg, decodeProtectedHeader(refused.logoutToken).alg);
    } finally {
      receiver.answer = answer;
    }
  });
});
