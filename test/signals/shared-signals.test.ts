import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { eventually } from '../faults/faults.helpers.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { createHuman, createMachine, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { LogoutReceiver } from '../oidc/support/logout-receiver.js';
import { startPostReceiver } from '../support/post-receiver.js';
import { signIn } from '../oidc/support/sign-in.js';
import { SignInFlow, factorIdOf, setLoginPolicy, totpCode, totpSecretOf } from '../oidc/support/second-factor.js';
import { useOtherInstance } from '../support/other-instance.js';
import { SetTransmitter } from './support/set-transmitter.js';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const SESSION_REVOKED = `${CAEP}session-revoked`;
const CREDENTIAL_CHANGE = `${CAEP}credential-change`;
const ACCOUNT_DISABLED = `${RISC}account-disabled`;
const ACCOUNT_ENABLED = `${RISC}account-enabled`;
const IDENTIFIER_CHANGED = `${RISC}identifier-changed`;
const ASSURANCE_LEVEL_CHANGE = `${CAEP}assurance-level-change`;
const ACCOUNT_PURGED = `${RISC}account-purged`;
const ALL = [SESSION_REVOKED, CREDENTIAL_CHANGE, ACCOUNT_DISABLED, ACCOUNT_ENABLED, IDENTIFIER_CHANGED];
const POLL = 'urn:ietf:rfc:8936';
const RP = 'http://127.0.0.1:65530';
/** An application its organization made a Shared Signals receiver. */
const RECEIVER = { authMethod: 'client_secret_basic', settings: { ssfReceiver: true } } as const;

type Project = { orgId: string; projectId: string; primaryDomain: string };

/**
 * docs/signals.md: Portcullis A (a process of its own) transmits Shared Signals, Portcullis B (this process) receives
 * them through its upstream IdP A. A's SETs are polled and verified here with jose against A's published keys; SETs
 * B must refuse are pushed to B by a transmitter written with jose (support/set-transmitter.ts).
 */
describe('Shared Signals: A transmits, B receives', () => {
  const a = useOtherInstance({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', AUDIT_STREAM_RETRY_BASE_MS: '200' });
  const b = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', BACKCHANNEL_LOGOUT_RETRY_BASE_MS: '100', BACKCHANNEL_LOGOUT_POLL_MS: '200' });
  let logouts: LogoutReceiver;
  let aProject: Project;
  let bProject: Project;
  let aApp: OidcApp;
  let bApp: OidcApp & { logoutUri: string };
  let idpId: string;
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  const basic = (app: Pick<OidcApp, 'clientId' | 'clientSecret'>) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
  /** A token request by client credentials at A (RFC 6749 §4.4), as a receiver makes one (docs/signals.md, "Receivers"). */
  async function receiverToken(app: Pick<OidcApp, 'clientId' | 'clientSecret'>, form: Record<string, string> = { scope: 'ssf.manage' }) {
    const res = await fetch(new URL('/oauth/v2/token', a.url), {
      method: 'POST',
      headers: { authorization: basic(app), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...form }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }
  const receiverTokens = new Map<string, string>();
  /** The receiver's `Authorization`: a token of scope ssf.manage, got once per application. */
  async function bearer(app: Pick<OidcApp, 'clientId' | 'clientSecret'>): Promise<string> {
    if (!receiverTokens.has(app.clientId)) {
      const issued = await receiverToken(app);
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      receiverTokens.set(app.clientId, issued.body.access_token);
    }
    return `Bearer ${receiverTokens.get(app.clientId)}`;
  }
  const aUser = (userId: string, rest = '') => `/management/v1/orgs/${aProject.orgId}/users/${userId}${rest}`;

  before(async () => {
    logouts = await LogoutReceiver.start();
    aProject = await createProject(a);
    aApp = await createOidcApp(a, aProject, RECEIVER);
    bProject = await createProject(b);
    const logoutUri = logouts.endpoint();
    bApp = { ...(await createOidcApp(b, bProject, { authMethod: 'client_secret_basic', settings: { backchannelLogoutUri: logoutUri } }, RP)), logoutUri };
    const idp = await b.api('POST', `/management/v1/orgs/${bProject.orgId}/idps`, {
      token: b.adminToken,
      body: { type: 'oidc', name: 'Portcullis A', issuer: a.url, clientId: aApp.clientId, clientSecret: aApp.clientSecret },
    });
    assert.equal(idp.status, 201, idp.text);
    idpId = idp.body.id;
    const subscribed = await b.api('PUT', `/management/v1/orgs/${bProject.orgId}/idps/${idpId}/signals`, { token: b.adminToken });
    assert.equal(subscribed.status, 201, subscribed.text);
    assert.equal(subscribed.body.issuer, a.url);
    jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', a.url));
  });
  after(() => logouts?.close());

  /** A person at A, their account at B linked to it, signed in at B's application. */
  async function linkedPerson(primaryDomain: string, orgId: string, idp: string, subject?: string) {
    const atA = subject ? undefined : await createHuman(a, aProject.orgId);
    const atB = await createHuman(b, orgId);
    const link = await b.api('POST', `/management/v1/orgs/${orgId}/users/${atB.userId}/identities`, {
      token: b.adminToken,
      body: { idpId: idp, subject: subject ?? atA!.userId },
    });
    assert.equal(link.status, 201, link.text);
    const signedIn = await signIn(b, {
      clientId: bApp.clientId,
      clientSecret: bApp.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${atB.userName}@${primaryDomain}`,
      password: PASSWORD,
    });
    assert.ok(signedIn.tokens, signedIn.error);
    return { atA, atB };
  }

  const sessionsAtB = async (userId: string) =>
    Number((await b.dataSource.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'Session' AND account_id = ?", [userId]))[0].n);
  const stateAtB = async (userId: string) => String((await b.dataSource.query('SELECT state FROM users WHERE id = ?', [userId]))[0].state);

  async function pollStream(app: OidcApp, events = ALL) {
    const res = await a.api('POST', '/ssf/v1/streams', {
      headers: { authorization: await bearer(app) },
      body: { delivery: { method: POLL }, events_requested: events },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.delivery.endpoint_url, `${a.url}/ssf/v1/poll/${res.body.stream_id}`);
    return res.body.stream_id as string;
  }

  /** Polls (RFC 8936), acknowledging what it got, until `done` holds for what was received so far. */
  async function pollUntil(app: OidcApp, streamId: string, done: (sets: JWTPayload[]) => boolean): Promise<JWTPayload[]> {
    const got: JWTPayload[] = [];
    let ack: string[] = [];
    await eventually('the SETs at the poll endpoint', async () => {
      const res = await a.api('POST', `/ssf/v1/poll/${streamId}`, {
        headers: { authorization: await bearer(app) },
        body: { ack, maxEvents: 50, returnImmediately: true },
      });
      assert.equal(res.status, 200, res.text);
      ack = Object.keys(res.body.sets);
      for (const [jti, token] of Object.entries(res.body.sets as Record<string, string>)) got.push(await verified(token, app, jti));
      return done(got) ? true : undefined;
    });
    if (ack.length) await a.api('POST', `/ssf/v1/poll/${streamId}`, { headers: { authorization: await bearer(app) }, body: { ack, maxEvents: 0 } });
    return got;
  }

  /** RFC 8417 and SSF 1.0 §4 as a receiver checks them, with jose against A's JWKS. */
  async function verified(token: string, app: OidcApp, jti: string): Promise<JWTPayload> {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: a.url, audience: app.clientId, typ: 'secevent+jwt' });
    assert.equal(protectedHeader.typ, 'secevent+jwt');
    assert.equal(payload.jti, jti);
    assert.equal(Object.keys(payload.events as object).length, 1, 'one event per SET');
    assert.equal(payload.exp, undefined, 'a SET is no credential: no exp');
    return payload;
  }

  const eventOf = (set: JWTPayload) => Object.keys(set.events as object)[0];
  const subjectOf = (set: JWTPayload) => (set.sub_id as { sub?: string }).sub;

  it('publishes the transmitter configuration (SSF 1.0 §7.1)', async () => {
    const res = await fetch(new URL('/.well-known/ssf-configuration', a.url));
    assert.equal(res.status, 200);
    const config = (await res.json()) as Record<string, any>;
    assert.equal(config.issuer, a.url);
    assert.equal(config.jwks_uri, `${a.url}/oauth/v2/keys`);
    assert.deepEqual(config.delivery_methods_supported, ['urn:ietf:rfc:8935', POLL]);
    for (const endpoint of ['configuration_endpoint', 'status_endpoint', 'verification_endpoint', 'add_subject_endpoint', 'remove_subject_endpoint'])
      assert.match(config[endpoint], /^http:\/\/127\.0\.0\.1:\d+\/ssf\/v1\//);
    const anonymous = await a.api('GET', '/ssf/v1/streams');
    assert.equal(anonymous.status, 401, 'stream management needs the receiver');
    const wrong = await a.api('GET', '/ssf/v1/streams', { headers: { authorization: `Basic ${Buffer.from(`${aApp.clientId}:nope`).toString('base64')}` } });
    assert.equal(wrong.status, 401);
    assert.equal((await a.api('GET', '/ssf/v1/streams', { headers: { authorization: 'Bearer not-a-token-of-this-instance' } })).status, 401);
    // A receiver configured before tokens still authenticates with its client id and secret (HTTP Basic).
    assert.equal((await a.api('GET', '/ssf/v1/streams', { headers: { authorization: basic(aApp) } })).status, 200);
  });

  it('an API application made a receiver manages its streams with a token of scope ssf.manage, which reaches nothing else; no other client gets one', async () => {
    const apps = `/management/v1/orgs/${aProject.orgId}/projects/${aProject.projectId}/apps`;
    const created = await a.api('POST', `${apps}/api`, {
      token: a.adminToken,
      body: { name: unique('SIEM receiver'), authMethod: 'client_secret_basic', ssfReceiver: true },
    });
    assert.equal(created.status, 201, created.text);
    const receiver = { clientId: created.body.clientId as string, clientSecret: created.body.clientSecret as string };
    const issued = await receiverToken(receiver);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.deepEqual([issued.body.token_type, issued.body.scope], ['Bearer', 'ssf.manage']);
    const auth = { authorization: `Bearer ${issued.body.access_token}` };

    const stream = await a.api('POST', '/ssf/v1/streams', { headers: auth, body: { delivery: { method: POLL }, events_requested: [SESSION_REVOKED] } });
    assert.equal(stream.status, 201, stream.text);
    const streamId = stream.body.stream_id as string;
    assert.equal(stream.body.aud, receiver.clientId);
    const read = await a.api('GET', `/ssf/v1/streams?stream_id=${streamId}`, { headers: auth });
    assert.deepEqual([read.status, read.body.stream_id], [200, streamId]);
    const changed = await a.api('PATCH', '/ssf/v1/streams', { headers: auth, body: { stream_id: streamId, description: 'SIEM' } });
    assert.deepEqual([changed.status, changed.body.description], [200, 'SIEM']);
    const paused = await a.api('POST', '/ssf/v1/streams/status', { headers: auth, body: { stream_id: streamId, status: 'paused' } });
    assert.deepEqual([paused.status, paused.body.status], [200, 'paused']);
    assert.equal(
      (await a.api('GET', `/ssf/v1/streams?stream_id=${streamId}`, { headers: { authorization: await bearer(aApp) } })).status,
      404,
      'another receiver does not see it',
    );

    // The token is for the stream management endpoints alone: not the APIs, userinfo, or introspection by an application of its project.
    assert.equal((await a.api('GET', `/management/v1/orgs/${aProject.orgId}/users`, { headers: auth })).status, 401);
    assert.equal((await a.api('GET', `/scim/v2/${aProject.orgId}/Users`, { headers: auth })).status, 401);
    const userinfo = await fetch(new URL('/oidc/v1/userinfo', a.url), { headers: auth });
    assert.deepEqual([userinfo.status, ((await userinfo.json()) as { error?: string }).error], [403, 'insufficient_scope'], 'no openid, no user');
    const introspected = await fetch(new URL('/oauth/v2/introspect', a.url), {
      method: 'POST',
      headers: { authorization: basic(aApp), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.body.access_token }),
    });
    assert.deepEqual(await introspected.json(), { active: false });
    // That scope alone, for no resource; no other client gets it.
    const more = await receiverToken(receiver, { scope: 'ssf.manage openid' });
    assert.deepEqual([more.status, more.body.error], [400, 'invalid_scope']);
    const resource = await receiverToken(receiver, { scope: 'ssf.manage', resource: 'urn:portcullis:api' });
    assert.deepEqual([resource.status, resource.body.error], [400, 'invalid_target']);
    const plain = await a.api('POST', `${apps}/api`, { token: a.adminToken, body: { name: unique('plain api'), authMethod: 'client_secret_basic' } });
    assert.equal(plain.status, 201, plain.text);
    const notReceiver = await receiverToken({ clientId: plain.body.clientId, clientSecret: plain.body.clientSecret });
    assert.deepEqual([notReceiver.status, notReceiver.body.error], [400, 'unauthorized_client']);
    const machine = await createMachine(a, aProject.orgId);
    const machineAsks = await receiverToken(machine);
    assert.deepEqual([machineAsks.status, machineAsks.body.error], [400, 'invalid_scope']);
    const machineToken = await receiverToken(machine, {});
    assert.equal(machineToken.status, 200, JSON.stringify(machineToken.body));
    assert.equal(
      (await a.api('GET', '/ssf/v1/streams', { headers: { authorization: `Bearer ${machineToken.body.access_token}` } })).status,
      401,
      'a token without ssf.manage',
    );

    // Nor is it exchanged (RFC 8693) for anything: by a receiver that may exchange tokens, nor by another application of its project.
    assert.equal((await a.api('PUT', '/admin/v1/features', { token: a.adminToken, body: { tokenExchange: true } })).status, 200);
    const exchanger = await createOidcApp(a, aProject, {
      authMethod: 'client_secret_basic',
      settings: { ssfReceiver: true, grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'] },
    });
    const exchangerToken = (await receiverToken(exchanger)).body.access_token;
    const sibling = await createOidcApp(a, aProject, {
      authMethod: 'client_secret_basic',
      settings: { grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'] },
    });
    for (const [who, subject] of [
      [exchanger, exchangerToken],
      [sibling, issued.body.access_token],
    ] as const) {
      const exchanged = await fetch(new URL('/oauth/v2/token', a.url), {
        method: 'POST',
        headers: { authorization: basic(who), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: subject,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        }),
      });
      const body = (await exchanged.json()) as { error?: string; error_description?: string; access_token?: string };
      assert.deepEqual([exchanged.status, body.error, body.access_token], [400, 'invalid_grant', undefined], JSON.stringify(body));
      assert.match(String(body.error_description), /an application's own, exchanged for nothing/);
    }

    // Made no receiver again: its token opens nothing from the next call on.
    const cleared = await a.api('PATCH', `${apps}/${created.body.appId}`, { token: a.adminToken, body: { ssfReceiver: false } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await a.api('GET', `/ssf/v1/streams?stream_id=${streamId}`, { headers: auth })).status, 401);
  });

  it('disabling a person at A ends their session at B, deactivates them there, and B’s application gets back-channel logout', async () => {
    const { atA, atB } = await linkedPerson(bProject.primaryDomain, bProject.orgId, idpId);
    assert.equal(await sessionsAtB(atB.userId), 1);
    const before = logouts.at(bApp.logoutUri).length;
    const disabled = await a.api('POST', aUser(atA!.userId, '/deactivate'), { token: a.adminToken, body: {} });
    assert.equal(disabled.status, 200, disabled.text);
    await eventually('the back-channel logout at B’s application', async () => (logouts.at(bApp.logoutUri).length > before ? true : undefined));
    assert.equal(await sessionsAtB(atB.userId), 0);
    // A sends session-revoked, then account-disabled (docs/signals.md, "What is transmitted"): the second may still be on its way.
    await eventually('the person deactivated at B', async () => ((await stateAtB(atB.userId)) === 'inactive' ? true : undefined));
    const accepted = await searchEvents(b, { event_types: ['ssf.set.accepted'], aggregate_id: idpId });
    assert.ok(
      accepted.some((e) => e.payload.userId === atB.userId && e.payload.event === ACCOUNT_DISABLED),
      JSON.stringify(accepted),
    );
  });

  it('a password changed at A ends the person’s sign-in at B (back-channel logout), not their account; removed at A, deactivated at B', async () => {
    const { atA, atB } = await linkedPerson(bProject.primaryDomain, bProject.orgId, idpId);
    assert.equal(await sessionsAtB(atB.userId), 1);
    const before = logouts.at(bApp.logoutUri).length;
    const changed = await a.api('PUT', aUser(atA!.userId, '/password'), { token: a.adminToken, body: { password: 'Another-Horse-77' } });
    assert.equal(changed.status, 200, changed.text);
    await eventually('the back-channel logout at B’s application', async () => (logouts.at(bApp.logoutUri).length > before ? true : undefined));
    assert.equal(await sessionsAtB(atB.userId), 0);
    assert.equal(await stateAtB(atB.userId), 'active', 'a changed credential disables nobody');
    const accepted = await searchEvents(b, { event_types: ['ssf.set.accepted'], aggregate_id: idpId });
    assert.ok(
      accepted.some((e) => e.payload.userId === atB.userId && e.payload.event === CREDENTIAL_CHANGE),
      JSON.stringify(accepted),
    );
    assert.equal((await a.api('DELETE', aUser(atA!.userId), { token: a.adminToken })).status, 204);
    await eventually('the person deactivated at B', async () => ((await stateAtB(atB.userId)) === 'inactive' ? true : undefined));
    const purged = await searchEvents(b, { event_types: ['ssf.set.accepted'], aggregate_id: idpId });
    assert.ok(
      purged.some((e) => e.payload.userId === atB.userId && e.payload.event === ACCOUNT_PURGED),
      JSON.stringify(purged),
    );
  });

  it('sign-out, credential change, e-mail change, disable and enable at A each make their SET', async () => {
    const app = await createOidcApp(a, aProject, RECEIVER);
    const streamId = await pollStream(app);
    const bob = await createHuman(a, aProject.orgId);
    const session = await signIn(a, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${bob.userName}@${aProject.primaryDomain}`,
      password: PASSWORD,
    });
    assert.ok(session.tokens, session.error);
    const sessions = await a.api('GET', aUser(bob.userId, '/sessions'), { token: a.adminToken });
    assert.equal(sessions.status, 200, sessions.text);
    assert.equal((await a.api('DELETE', aUser(bob.userId, `/sessions/${sessions.body.sessions[0].sessionId}`), { token: a.adminToken })).status, 204);
    assert.equal((await a.api('PUT', aUser(bob.userId, '/password'), { token: a.adminToken, body: { password: 'Another-Horse-77' } })).status, 200);
    const email = `${unique('bob')}@example.com`;
    assert.equal((await a.api('PATCH', aUser(bob.userId), { token: a.adminToken, body: { email: { email } } })).status, 200);
    assert.equal((await a.api('POST', aUser(bob.userId, '/deactivate'), { token: a.adminToken, body: {} })).status, 200);
    assert.equal((await a.api('POST', aUser(bob.userId, '/reactivate'), { token: a.adminToken, body: {} })).status, 200);
    const sets = await pollUntil(app, streamId, (got) => got.some((s) => eventOf(s) === ACCOUNT_ENABLED));
    for (const set of sets) assert.deepEqual(set.sub_id, { format: 'iss_sub', iss: a.url, sub: bob.userId });
    const types = sets.map(eventOf);
    assert.deepEqual(new Set(types), new Set(ALL), types.join(', '));
    assert.equal(types[0], SESSION_REVOKED, 'the sign-out first, in the order things happened');
    assert.ok(types.indexOf(ACCOUNT_DISABLED) < types.indexOf(ACCOUNT_ENABLED));
    const changed = sets.find((s) => eventOf(s) === IDENTIFIER_CHANGED)!;
    assert.equal((changed.events as any)[IDENTIFIER_CHANGED]['new-value'], email);
    const credential = sets.find((s) => eventOf(s) === CREDENTIAL_CHANGE)!;
    assert.deepEqual(
      { ...(credential.events as any)[CREDENTIAL_CHANGE], event_timestamp: 0 },
      { credential_type: 'password', change_type: 'update', event_timestamp: 0 },
    );
  });

  it('a second factor makes credential-change and assurance-level-change, a removal account-purged — only to apps that admitted the person', async () => {
    const project = await createProject(a);
    await setLoginPolicy(a, project.orgId, { mfa: 'optional' });
    const app = await createOidcApp(a, project, RECEIVER);
    const streamId = await pollStream(app, [CREDENTIAL_CHANGE, ASSURANCE_LEVEL_CHANGE, ACCOUNT_PURGED]);
    const granted = await createOidcApp(a, project, { authMethod: 'client_secret_basic', settings: { access: 'granted', ssfReceiver: true } });
    const grantedStream = await pollStream(granted, [ACCOUNT_PURGED]);
    const dave = await createHuman(a, project.orgId);
    const outsider = await createHuman(a, project.orgId);
    const grant = await a.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
      token: a.adminToken,
      body: { userId: dave.userId, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    // TOTP through the sign-in's enrolment offer, as a person adds it (docs/account.md).
    const flow = new SignInFlow(a, app, `${RP}/cb`);
    await flow.authorize();
    const offer = await flow.next(await flow.password(`${dave.userName}@${project.primaryDomain}`, PASSWORD));
    const setup = await flow.post('enrol/totp', offer);
    const shown = await flow.post('enrol/totp/confirm', setup, { factorId: factorIdOf(setup), code: totpCode(totpSecretOf(setup)) });
    assert.equal(shown.status, 200, shown.text.slice(0, 300));
    const factors = await a.api('GET', `/management/v1/orgs/${project.orgId}/users/${dave.userId}/factors`, { token: a.adminToken });
    const totp = factors.body.factors.find((f: { type: string }) => f.type === 'totp');
    const user = (id: string, rest = '') => `/management/v1/orgs/${project.orgId}/users/${id}${rest}`;
    assert.equal((await a.api('DELETE', user(dave.userId, `/factors/${totp.id}`), { token: a.adminToken })).status, 204);
    // The outsider first: once the granted stream has Dave's removal, it has passed over the outsider's.
    for (const id of [outsider.userId, dave.userId]) assert.equal((await a.api('DELETE', user(id), { token: a.adminToken })).status, 204);
    const sets = await pollUntil(app, streamId, (got) => got.filter((s) => eventOf(s) === ACCOUNT_PURGED).length === 2);
    const ofDave = sets.filter((s) => subjectOf(s) === dave.userId);
    const body = (set: JWTPayload) => ({ ...(set.events as any)[eventOf(set)], event_timestamp: 0 });
    const levels = ofDave.filter((s) => eventOf(s) === ASSURANCE_LEVEL_CHANGE).map(body);
    assert.deepEqual(levels, [
      { namespace: 'NIST-AAL', current_level: 'nist-aal2', previous_level: 'nist-aal1', change_direction: 'increase', event_timestamp: 0 },
      { namespace: 'NIST-AAL', current_level: 'nist-aal1', previous_level: 'nist-aal2', change_direction: 'decrease', event_timestamp: 0 },
    ]);
    const credentials = ofDave.filter((s) => eventOf(s) === CREDENTIAL_CHANGE).map(body);
    assert.deepEqual(
      credentials.map((c) => c.change_type),
      ['create', 'create', 'delete'],
      'the authenticator, its recovery codes, the authenticator removed',
    );
    assert.equal(eventOf(ofDave[ofDave.length - 1]), ACCOUNT_PURGED, 'the removal last');
    const toGranted = await pollUntil(granted, grantedStream, (got) => got.length > 0);
    assert.deepEqual(toGranted.map(subjectOf), [dave.userId], 'the application that did not admit the outsider hears nothing of them');
    assert.equal(eventOf(toGranted[0]), ACCOUNT_PURGED);
  });

  it('a receiver that added subjects hears only of them (SSF 1.0 §8.1.3), by iss_sub or e-mail', async () => {
    const app = await createOidcApp(a, aProject, RECEIVER);
    const streamId = await pollStream(app, [CREDENTIAL_CHANGE]);
    const [byId, byEmail, other] = [await createHuman(a, aProject.orgId), await createHuman(a, aProject.orgId), await createHuman(a, aProject.orgId)];
    const subjects = async (action: 'add' | 'remove', subject: unknown, id = streamId, who = app) =>
      a.api('POST', `/ssf/v1/streams/subjects/${action}`, { headers: { authorization: await bearer(who) }, body: { stream_id: id, subject } });
    const idSubject = { format: 'iss_sub', iss: a.url, sub: byId.userId };
    assert.equal((await subjects('add', idSubject)).status, 200);
    assert.equal((await subjects('add', { format: 'email', email: `${byEmail.userName}@EXAMPLE.com` })).status, 200, 'an address in any case');
    for (const [bad, field] of [
      [{ format: 'iss_sub', iss: 'https://elsewhere.example', sub: other.userId }, 'subject.iss'],
      [{ format: 'phone_number', phone_number: '+12065550100' }, 'subject.format'],
      [{ format: 'email', email: 'not-an-address' }, 'subject.email'],
    ] as const) {
      const refused = await subjects('add', bad);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.details?.[0]?.field, field, refused.text);
    }
    const stranger = await createOidcApp(a, aProject, RECEIVER);
    assert.equal((await subjects('add', idSubject, streamId, stranger)).status, 404, "another application's stream");
    const changePasswords = async (users: { userId: string }[]) => {
      for (const user of users)
        assert.equal((await a.api('PUT', aUser(user.userId, '/password'), { token: a.adminToken, body: { password: 'Another-Horse-77' } })).status, 200);
    };
    await changePasswords([other, byId, byEmail]);
    const first = await pollUntil(app, streamId, (got) => got.some((s) => subjectOf(s) === byEmail.userId));
    assert.deepEqual(first.map(subjectOf), [byId.userId, byEmail.userId], 'nothing of the person no subject names');
    assert.equal((await subjects('remove', idSubject)).status, 204);
    assert.equal((await subjects('remove', idSubject)).status, 404, 'a subject the stream no longer has');
    await changePasswords([byId, byEmail]);
    const second = await pollUntil(app, streamId, (got) => got.some((s) => subjectOf(s) === byEmail.userId));
    assert.deepEqual(second.map(subjectOf), [byEmail.userId], 'a removed subject is heard of no more');
  });

  it('a paused stream holds its events and delivers them when enabled again', async () => {
    const app = await createOidcApp(a, aProject, RECEIVER);
    const held = await pollStream(app, [IDENTIFIER_CHANGED]);
    const control = await pollStream(app, [IDENTIFIER_CHANGED]);
    const paused = await a.api('POST', '/ssf/v1/streams/status', {
      headers: { authorization: await bearer(app) },
      body: { stream_id: held, status: 'paused', reason: 'maintenance' },
    });
    assert.equal(paused.status, 200, paused.text);
    assert.deepEqual(paused.body, { stream_id: held, status: 'paused', reason: 'maintenance' });
    const carol = await createHuman(a, aProject.orgId);
    const email = `${unique('carol')}@example.com`;
    assert.equal((await a.api('PATCH', aUser(carol.userId), { token: a.adminToken, body: { email: { email } } })).status, 200);
    // The enabled stream got it: A has made the SETs of that event for every stream that wanted it.
    await pollUntil(app, control, (got) => got.some((s) => subjectOf(s) === carol.userId));
    const whilePaused = await a.api('POST', `/ssf/v1/poll/${held}`, { headers: { authorization: await bearer(app) }, body: { maxEvents: 10 } });
    assert.deepEqual(whilePaused.body, { sets: {}, moreAvailable: false });
    const enabled = await a.api('POST', '/ssf/v1/streams/status', {
      headers: { authorization: await bearer(app) },
      body: { stream_id: held, status: 'enabled' },
    });
    assert.equal(enabled.status, 200, enabled.text);
    const sets = await pollUntil(app, held, (got) => got.some((s) => subjectOf(s) === carol.userId));
    assert.equal((sets.find((s) => subjectOf(s) === carol.userId)!.events as any)[IDENTIFIER_CHANGED]['new-value'], email);
  });

  it('a stream gets events only of people its application admits', async () => {
    const project = await createProject(a, aProject.orgId);
    const app = await createOidcApp(a, project, { authMethod: 'client_secret_basic', settings: { access: 'granted', ssfReceiver: true } });
    const streamId = await pollStream(app, [CREDENTIAL_CHANGE]);
    const outsider = await createHuman(a, aProject.orgId);
    const member = await createHuman(a, aProject.orgId);
    const grant = await a.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
      token: a.adminToken,
      body: { userId: member.userId, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    for (const user of [outsider, member])
      assert.equal((await a.api('PUT', aUser(user.userId, '/password'), { token: a.adminToken, body: { password: 'Another-Horse-77' } })).status, 200);
    const sets = await pollUntil(app, streamId, (got) => got.some((s) => subjectOf(s) === member.userId));
    assert.deepEqual(sets.map(subjectOf), [member.userId], 'nothing about the person the application does not admit');
  });

  it('an application its organization did not make a receiver opens no stream, until an ORG_OWNER makes it one', async () => {
    const app = await createOidcApp(a, aProject, { authMethod: 'client_secret_basic' });
    const refused = await a.api('POST', '/ssf/v1/streams', {
      headers: { authorization: basic(app) },
      body: { delivery: { method: POLL }, events_requested: ALL },
    });
    assert.equal(refused.status, 401, refused.text);
    assert.equal((await a.api('GET', '/ssf/v1/streams', { headers: { authorization: basic(app) } })).status, 401);
    const noToken = await receiverToken(app);
    assert.equal(noToken.status, 400, 'no client credentials for an application that is no receiver');
    assert.equal(noToken.body.error, 'unauthorized_client');
    const made = await a.api('PATCH', `/management/v1/orgs/${aProject.orgId}/projects/${aProject.projectId}/apps/${app.appId}`, {
      token: a.adminToken,
      body: { ssfReceiver: true },
    });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.ssfReceiver, true);
    await pollStream(app);
  });

  it('only an ORG_OWNER of its organization makes an application a receiver: anyone else is refused and nothing changes', async () => {
    const apps = `/management/v1/orgs/${aProject.orgId}/projects/${aProject.projectId}/apps`;
    const manager = await createCaller(a, aProject.orgId, { org: ['ORG_USER_MANAGER'] });
    const elsewhere = await createOrg(a);
    const foreignOwner = await createCaller(a, elsewhere.id, { org: ['ORG_OWNER'] });
    const owner = await createCaller(a, aProject.orgId, { org: ['ORG_OWNER'] });
    const app = await createOidcApp(a, aProject, { authMethod: 'client_secret_basic' });
    // A is a process of its own: what it stores is read through its API, as its IAM_OWNER sees it.
    const countApps = async () => (await a.api('GET', apps, { token: a.adminToken })).body.total as number;
    const flagOf = async () => (await a.api('GET', `${apps}/${app.appId}`, { token: a.adminToken })).body.ssfReceiver as boolean;
    const before = await countApps();
    const body = {
      name: unique('rx'),
      redirectUris: [`${RP}/cb`],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_basic',
      accessTokenType: 'opaque',
      idTokenUserinfoAssertion: false,
      devMode: true,
      ssfReceiver: true,
    };
    // An ORG_OWNER elsewhere does not learn that the organization exists (404).
    for (const [caller, status] of [
      [manager, 403],
      [foreignOwner, 404],
    ] as const) {
      const created = await a.api('POST', `${apps}/oidc`, { token: caller.token, body });
      assert.equal(created.status, status, created.text);
      const patched = await a.api('PATCH', `${apps}/${app.appId}`, { token: caller.token, body: { ssfReceiver: true } });
      assert.equal(patched.status, status, patched.text);
    }
    assert.equal(await countApps(), before, 'no application was created');
    assert.equal(await flagOf(), false, 'the application is no receiver');
    const made = await a.api('PATCH', `${apps}/${app.appId}`, { token: owner.token, body: { ssfReceiver: true } });
    assert.equal(made.status, 200, made.text);
    assert.equal(await flagOf(), true);
    const unmade = await a.api('PATCH', `${apps}/${app.appId}`, { token: manager.token, body: { ssfReceiver: false } });
    assert.equal(unmade.status, 403, unmade.text);
    assert.equal(await flagOf(), true, 'nor does anyone else stop it being one');
    const created = await a.api('POST', `${apps}/oidc`, { token: owner.token, body });
    assert.equal(created.status, 201, created.text);
  });

  it('a verification event reaches the stream (SSF 1.0 §8.1.4.2), and a deleted stream is gone', async () => {
    const app = await createOidcApp(a, aProject, RECEIVER);
    const streamId = await pollStream(app);
    const verify = await a.api('POST', '/ssf/v1/streams/verify', {
      headers: { authorization: await bearer(app) },
      body: { stream_id: streamId, state: 'st-42' },
    });
    assert.equal(verify.status, 204, verify.text);
    const [set] = await pollUntil(app, streamId, (got) => got.length > 0);
    assert.deepEqual(set.events, { 'https://schemas.openid.net/secevent/ssf/event-type/verification': { state: 'st-42' } });
    const other = await createOidcApp(a, aProject, RECEIVER);
    const foreign = await a.api('GET', `/ssf/v1/streams?stream_id=${streamId}`, { headers: { authorization: await bearer(other) } });
    assert.equal(foreign.status, 404, 'another application sees no stream of this one');
    assert.equal((await a.api('DELETE', `/ssf/v1/streams?stream_id=${streamId}`, { headers: { authorization: await bearer(app) } })).status, 204);
    assert.equal((await a.api('GET', `/ssf/v1/streams?stream_id=${streamId}`, { headers: { authorization: await bearer(app) } })).status, 404);
    const events = await searchEvents(a, { aggregate_id: app.appId, event_types: ['ssf.stream.added', 'ssf.stream.removed'], asc: true });
    assert.deepEqual(
      events.map((e) => [e.type.type, e.payload.streamId]),
      [
        ['ssf.stream.added', streamId],
        ['ssf.stream.removed', streamId],
      ],
    );
  });

  it('a push the receiver does not take is sent again, the same SET, and what follows waits behind it', async () => {
    const app = await createOidcApp(a, aProject, RECEIVER);
    const taken: { jti: string; sub: string; authorization: string }[] = [];
    let refusals = 2;
    const refused: string[] = [];
    const receiver = await startPostReceiver(
      (path) => path === '/ssf',
      ({ headers, body }) => {
        const claims = JSON.parse(Buffer.from(body.split('.')[1], 'base64url').toString('utf8'));
        if (refusals > 0) {
          refusals--;
          refused.push(claims.jti);
          return 503;
        }
        taken.push({ jti: claims.jti, sub: claims.sub_id.sub, authorization: String(headers.authorization) });
        return 202;
      },
    );
    try {
      const created = await a.api('POST', '/ssf/v1/streams', {
        headers: { authorization: await bearer(app) },
        body: {
          delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: `${receiver.origin}/ssf`, authorization_header: 'Bearer push-secret' },
          events_requested: [CREDENTIAL_CHANGE],
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.delivery.authorization_header, undefined, 'the authorization header is never shown again');
      const first = await createHuman(a, aProject.orgId);
      const second = await createHuman(a, aProject.orgId);
      for (const user of [first, second])
        assert.equal((await a.api('PUT', aUser(user.userId, '/password'), { token: a.adminToken, body: { password: 'Another-Horse-77' } })).status, 200);
      await eventually('both SETs taken', async () => (taken.length >= 2 ? true : undefined));
      assert.equal(refusals, 0, 'the receiver refused twice before it took one');
      assert.deepEqual(
        taken.map((t) => t.sub),
        [first.userId, second.userId],
        'in order, the refused one first',
      );
      assert.ok(taken.every((t) => t.authorization === 'Bearer push-secret'));
      assert.deepEqual(refused, [taken[0].jti, taken[0].jti], 'each retry is the same SET (its jti)');
    } finally {
      await receiver.close();
    }
  });

  describe('B refuses what it must, and changes nothing', () => {
    let tx: SetTransmitter;
    let txIdp: string;
    let push: (token: string, authorization?: string) => Promise<{ status: number; body: any }>;

    before(async () => {
      tx = await SetTransmitter.start('portcullis-b-at-tx', 'tx-secret-1234');
      const idp = await b.api('POST', `/management/v1/orgs/${bProject.orgId}/idps`, {
        token: b.adminToken,
        body: { type: 'oidc', name: 'jose transmitter', issuer: tx.issuer, clientId: 'portcullis-b-at-tx', clientSecret: 'tx-secret-1234' },
      });
      assert.equal(idp.status, 201, idp.text);
      txIdp = idp.body.id;
      const subscribed = await b.api('PUT', `/management/v1/orgs/${bProject.orgId}/idps/${txIdp}/signals`, { token: b.adminToken });
      assert.equal(subscribed.status, 201, subscribed.text);
      const [stream] = tx.streams;
      // B asked for a token of scope ssf.manage by client credentials, and created the stream with it (docs/signals.md).
      assert.deepEqual(
        tx.tokenRequests.map((r) => r.form),
        [{ grant_type: 'client_credentials', scope: 'ssf.manage' }],
      );
      assert.match(stream.authorization, /^Bearer tx-token-/);
      assert.equal(stream.body.delivery.method, 'urn:ietf:rfc:8935');
      assert.deepEqual(stream.body.events_requested.sort(), [SESSION_REVOKED, CREDENTIAL_CHANGE, ACCOUNT_DISABLED, ACCOUNT_PURGED].sort());
      push = async (token, authorization = stream.body.delivery.authorization_header) => {
        const res = await fetch(stream.body.delivery.endpoint_url, {
          method: 'POST',
          headers: { 'content-type': 'application/secevent+jwt', authorization },
          body: token,
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined };
      };
    });
    after(() => tx?.close());

    it('unsigned, replayed, for another audience, too old, for an unknown subject or without the push token: refused, nothing ended', async () => {
      const { atB } = await linkedPerson(bProject.primaryDomain, bProject.orgId, txIdp, 'erin-sub');
      const refusedBefore = (await searchEvents(b, { event_types: ['ssf.set.refused'], aggregate_id: txIdp })).length;
      const now = Math.floor(Date.now() / 1000);
      const base = {
        iss: tx.issuer,
        aud: tx.audience,
        iat: now,
        jti: 'x1',
        sub_id: { format: 'iss_sub', iss: tx.issuer, sub: 'erin-sub' },
        events: { [SESSION_REVOKED]: {} },
      };
      const cases: [string, string, string | undefined, number][] = [
        ['unsigned', tx.unsigned(base), undefined, 400],
        ['another audience', await tx.set(SESSION_REVOKED, 'erin-sub', { aud: 'someone-else' }), undefined, 400],
        ['too old', await tx.set(SESSION_REVOKED, 'erin-sub', { iat: now - 600 }), undefined, 400],
        ['unknown subject', await tx.set(ACCOUNT_DISABLED, 'nobody-sub'), undefined, 400],
        ['another issuer', await tx.set(SESSION_REVOKED, 'erin-sub', { iss: 'https://elsewhere.example' }), undefined, 400],
        ['no push token', await tx.set(SESSION_REVOKED, 'erin-sub'), 'Bearer wrong', 401],
      ];
      for (const [what, token, authorization, status] of cases) {
        const res = await push(token, authorization);
        assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(typeof res.body?.err, 'string', `${what}: an err (RFC 8935 §2.3)`);
      }
      assert.equal(await sessionsAtB(atB.userId), 1, 'no refused SET ended the session');
      assert.equal(await stateAtB(atB.userId), 'active');
      const credential = await tx.set(CREDENTIAL_CHANGE, 'erin-sub');
      assert.equal((await push(credential)).status, 202, 'a good SET is accepted');
      const replayed = await push(credential);
      assert.equal(replayed.status, 400, 'the same jti again');
      const refused = await searchEvents(b, { event_types: ['ssf.set.refused'], aggregate_id: txIdp });
      assert.equal(
        refused.length - refusedBefore,
        cases.length - 1 + 1,
        'each SET refused is an event, the replay among them (a push without the token is answered before any SET is read)',
      );
      // The same checks let a good credential-change through: the refusals above were not for want of trying.
      assert.equal(await sessionsAtB(atB.userId), 0, 'credential-change ends the sign-in sessions');
      assert.equal(await stateAtB(atB.userId), 'active', 'credential-change disables nobody');
      // What B records and does not act on is accepted and changes nothing.
      await signIn(b, {
        clientId: bApp.clientId,
        clientSecret: bApp.clientSecret,
        redirectUri: `${RP}/cb`,
        loginName: `${atB.userName}@${bProject.primaryDomain}`,
        password: PASSWORD,
      });
      assert.equal((await push(await tx.set(ASSURANCE_LEVEL_CHANGE, 'erin-sub'))).status, 202);
      assert.equal(await sessionsAtB(atB.userId), 1, 'assurance-level-change ends nothing');
      assert.equal((await push(await tx.set(SESSION_REVOKED, 'erin-sub'))).status, 202);
      assert.equal(await sessionsAtB(atB.userId), 0);
      assert.equal(await stateAtB(atB.userId), 'active', 'session-revoked ends sessions; it disables nobody');
    });
  });
});
