import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import * as oidc from 'openid-client';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject, discover, postForm } from '../oidc/support/oidc-fixtures.js';
import { openidClientSignIn, signIn } from '../oidc/support/sign-in.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { SignInFlow, setLoginPolicy } from '../oidc/support/second-factor.js';
import { DeviceUser, csrfOf, deviceApp, poll } from '../oidc/support/device-user.js';
import { EXCHANGE, TOKEN_TYPE } from '../oidc/support/token-exchange.js';

const RP = 'http://127.0.0.1:65531';

/** The doors of an application that admits only granted users (docs/product-rules.md, "Application access"). */
describe('application access: the doors of an application with access "granted"', () => {
  const svc = useService();

  async function grantedApp(project: { orgId: string; projectId: string }): Promise<OidcApp & { name: string }> {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', settings: { access: 'granted' } }, RP);
    const read = await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, { token: svc.adminToken });
    assert.equal(read.body.access, 'granted', read.text);
    return { ...app, name: read.body.name };
  }

  async function grantThroughGroup(project: { orgId: string; projectId: string }, userId: string): Promise<string> {
    const group = await svc.api('POST', `/management/v1/orgs/${project.orgId}/groups`, { token: svc.adminToken, body: { displayName: unique('g') } });
    assert.equal(group.status, 201, group.text);
    const member = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/groups/${group.body.id}/members/${userId}`, { token: svc.adminToken });
    assert.ok(member.status < 300, member.text);
    const grant = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
      token: svc.adminToken,
      body: { groupId: group.body.id, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    return grant.body.grantId;
  }

  async function denials(service: TestService, userId: string): Promise<{ appId: string; door: string }[]> {
    const rows: { payload: string }[] = await service.dataSource.query(
      "SELECT payload FROM events WHERE type = 'user.app.access.denied' AND aggregate_id = ? ORDER BY position",
      [userId],
    );
    return rows.map((r) => JSON.parse(r.payload));
  }

  it('refuses a user without a grant (403 naming the app, no code), admits them through a group, and ends refresh, introspection and userinfo when the grant goes', async () => {
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const app = await grantedApp(project);
    const api = await createApiApp(svc, project);
    const user = await createHuman(svc, project.orgId);
    const loginName = `${user.userName}@${project.primaryDomain}`;

    const refusedFlow = new SignInFlow(svc, app, `${RP}/cb`);
    await refusedFlow.authorize({ scope: 'openid offline_access' });
    const refused = await refusedFlow.password(loginName, PASSWORD);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /access_denied/);
    assert.ok(refused.text.includes(app.name), 'the page names the application');
    assert.equal(refused.location, undefined, 'no redirect, so no code');
    assert.deepEqual(await denials(svc, user.userId), [{ appId: app.appId, door: 'authorize' }]);

    const grantId = await grantThroughGroup(project, user.userId);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await openidClientSignIn(svc, config, { redirectUri: `${RP}/cb`, loginName, scope: 'openid offline_access' });
    assert.equal(tokens.claims()?.sub, user.userId);
    assert.ok(tokens.refresh_token);
    const introspect = () => postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal((await introspect()).body.active, true);
    assert.equal((await oidc.fetchUserInfo(config, tokens.access_token, user.userId)).sub, user.userId);

    const removed = await svc.api('DELETE', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants/${grantId}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (e: { error?: string }) => e.error === 'invalid_grant');
    assert.equal((await introspect()).body.active, false);
    const userinfo = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(userinfo.status, 401);
    assert.deepEqual(await denials(svc, user.userId), [
      { appId: app.appId, door: 'authorize' },
      { appId: app.appId, door: 'refresh' },
    ]);
  });

  it('an SSO session is refused at a granted app: prompt=none answers access_denied, otherwise the 403 page names the app', async () => {
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const open = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const app = await grantedApp(project);
    const user = await createHuman(svc, project.orgId);
    const first = new SignInFlow(svc, open, `${RP}/cb`);
    await first.authorize();
    await first.tokens(await first.password(`${user.userName}@${project.primaryDomain}`, PASSWORD));

    const silent = new SignInFlow(svc, app, `${RP}/cb`, first.client);
    const answer = await silent.authorize({ prompt: 'none' });
    const callback = new URL(answer.location ?? '');
    assert.equal(`${callback.origin}${callback.pathname}`, `${RP}/cb`, answer.text);
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('code'), null);

    const shown = new SignInFlow(svc, app, `${RP}/cb`, first.client);
    const page = await shown.authorize();
    assert.equal(page.status, 403, page.text);
    assert.ok(page.text.includes(app.name), 'the page names the application');
    assert.deepEqual(
      (await denials(svc, user.userId)).map((d) => d.door),
      ['authorize', 'authorize'],
    );
  });

  it('the device flow: a user without a grant is refused at the confirmation, and the device hears access_denied at its next poll', async () => {
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const app = await deviceApp(svc, project);
    const patched = await svc.api('PATCH', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, {
      token: svc.adminToken,
      body: { access: 'granted' },
    });
    assert.equal(patched.status, 200, patched.text);
    const user = await createHuman(svc, project.orgId);
    const config = await discover(svc, app.clientId, oidc.None());
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const person = DeviceUser.of(svc);
    const { uid, page } = await person.loginPage((await person.press(await person.enter(started.user_code), 'confirm')).location!);
    const refused = await person.browser.follow(
      await person.browser.post(`/ui/login/${uid}/login`, {
        csrf: csrfOf(page.text),
        loginName: `${user.userName}@${project.primaryDomain}`,
        password: PASSWORD,
      }),
    );
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /data-device-denied/);
    const answer = await poll(svc, app, started.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(answer.body.access_token, undefined);
    assert.deepEqual(await denials(svc, user.userId), [{ appId: app.appId, door: 'device' }]);
  });

  it('token exchange with the user as subject answers invalid_grant once the grant is gone; client_credentials of a machine user are not affected', async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } })).status, 200);
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const app = await createOidcApp(
      svc,
      project,
      { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE], settings: { access: 'granted' } },
      RP,
    );
    const user = await createHuman(svc, project.orgId);
    const grant = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
      token: svc.adminToken,
      body: { userId: user.userId, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
    });
    assert.ok(tokens, `signed in: ${error}`);
    const exchange = () =>
      postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: EXCHANGE, subject_token: tokens.access_token, subject_token_type: TOKEN_TYPE.access },
        { id: app.clientId, secret: app.clientSecret! },
      );
    assert.equal((await exchange()).status, 200);
    const removed = await svc.api('DELETE', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants/${grant.body.grantId}`, {
      token: svc.adminToken,
    });
    assert.equal(removed.status, 204, removed.text);
    const refused = await exchange();
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'invalid_grant');
    assert.deepEqual(await denials(svc, user.userId), [{ appId: app.appId, door: 'token_exchange' }]);

    const machine = await createMachine(svc, project.orgId);
    const cc = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: 'openid' },
      { id: machine.clientId, secret: machine.clientSecret },
    );
    assert.equal(cc.status, 200, cc.text);
  });
});
