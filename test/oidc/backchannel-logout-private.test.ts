import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../faults/faults.helpers.js';
import { countRows, searchEvents, unique, useService } from '../support/fixtures.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from './support/oidc-fixtures.js';
import { LogoutReceiver } from './support/logout-receiver.js';
import { signIn } from './support/sign-in.js';

const RP = 'http://127.0.0.1:65530';

/**
 * docs/oauth-profiles.md, "Back-channel logout": without OUTBOUND_ALLOW_PRIVATE_NETWORKS a back-channel logout URI on loopback or a private network
 * is refused when it is registered, and a URI that resolves there by the time a logout token is due (a name that moved)
 * is refused by the sender: the logout is `failed` at once with a clear error and an event, and nothing is sent.
 */
describe('back-channel logout under the outbound address rules', () => {
  const svc = useService({ BACKCHANNEL_LOGOUT_POLL_MS: '200' });
  let receiver: LogoutReceiver;
  let project: { orgId: string; projectId: string; primaryDomain: string };

  before(async () => {
    receiver = await LogoutReceiver.start();
    project = await createProject(svc);
  });
  after(() => receiver?.close());

  const appsPath = () => `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps`;
  const oidcApp = (backchannelLogoutUri: string) => ({
    name: unique('app'),
    redirectUris: [`${RP}/cb`],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'client_secret_basic',
    devMode: true,
    backchannelLogoutUri,
  });

  it('a URI on loopback or a private network is refused at create and at PATCH (400 naming the field); nothing is stored; an unresolved name passes', async () => {
    const apps = await countRows(svc, 'applications');
    for (const uri of [receiver.endpoint(), 'http://localhost:9/bcl', 'https://10.0.0.8/logout', 'https://[::1]/logout', 'https://169.254.169.254/latest']) {
      const res = await svc.api('POST', `${appsPath()}/oidc`, { token: svc.adminToken, body: oidcApp(uri) });
      assert.equal(res.status, 400, `${uri}: ${res.text}`);
      assert.equal(res.body.details?.[0]?.field, 'backchannelLogoutUri', res.text);
      assert.match(res.body.details[0].message, /non-public address.*OUTBOUND_ALLOW_PRIVATE_NETWORKS/);
    }
    assert.equal(await countRows(svc, 'applications'), apps);
    // A name that resolves nowhere (yet) reaches nothing: accepted, and checked again at every attempt.
    const unresolved = await svc.api('POST', `${appsPath()}/oidc`, { token: svc.adminToken, body: oidcApp('https://rp.bcl.invalid/logout') });
    assert.equal(unresolved.status, 201, unresolved.text);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const patched = await svc.api('PATCH', `${appsPath()}/${app.appId}`, { token: svc.adminToken, body: { backchannelLogoutUri: receiver.endpoint() } });
    assert.equal(patched.status, 400, patched.text);
    assert.equal(patched.body.details?.[0]?.field, 'backchannelLogoutUri');
    const read = await svc.api('GET', `${appsPath()}/${app.appId}`, { token: svc.adminToken });
    assert.equal(read.body.backchannelLogoutUri ?? null, null, 'unchanged');
  });

  it('a URI that resolves to loopback when the token is due: failed at once with its reason and an event, nothing sent', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const logoutUri = receiver.endpoint();
    // As if the registered name now resolved to loopback (registration refuses the address itself, first test).
    await svc.dataSource.query('UPDATE applications SET backchannel_logout_uri = ? WHERE id = ?', [logoutUri, app.appId]);
    const user = await createHuman(svc, project.orgId);
    const { tokens } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: user.userName,
      password: PASSWORD,
    });
    assert.ok(tokens);
    const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/${user.userId}/deactivate`, { token: svc.adminToken, body: {} });
    assert.equal(res.status, 200, res.text);

    const row = await eventually('the logout given up', async () => {
      const [found] = (await svc.dataSource.query('SELECT status, attempts, last_error FROM backchannel_logouts WHERE app_id = ?', [app.appId])) as {
        status: string;
        attempts: unknown;
        last_error: string;
      }[];
      return found?.status === 'failed' ? found : undefined;
    });
    assert.equal(Number(row.attempts), 1, 'not retried: the address rules will not change their mind');
    assert.match(row.last_error, /outbound address rules.*127\.0\.0\.1.*OUTBOUND_ALLOW_PRIVATE_NETWORKS=true/);
    assert.equal(receiver.received.length, 0, 'nothing reached the receiver');

    const [event] = await searchEvents(svc, { event_types: ['project.application.logout.failed'], aggregate_id: app.appId });
    assert.ok(event, 'an event for operators');
    assert.equal(event.payload.clientId, app.clientId);
    assert.equal(event.payload.userId, user.userId);
    assert.equal(event.payload.attempts, 1);
    assert.match(String(event.payload.error), /OUTBOUND_ALLOW_PRIVATE_NETWORKS/);
    assert.doesNotMatch(JSON.stringify(event), /eyJ/, 'no token in the event');
  });
});
