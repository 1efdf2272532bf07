import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderHolder } from '../../../src/oidc/provider/provider.holder.js';
import { useService } from '../../support/fixtures.js';
import { createProject } from '../support/oidc-fixtures.js';
import { LogoutReceiver } from '../support/logout-receiver.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

/** What extensions/backchannel-logout.ts replaces: `Client#backchannelLogout`, oidc-provider's one sender of Logout Tokens. */
describe('contract: Client#backchannelLogout', () => {
  it('is the method end-session calls for each client with a back-channel logout URI', () => {
    assert.equal(typeof unpatchedProvider().Client.prototype.backchannelLogout, 'function');
    const source = librarySource('actions/end_session.js');
    assert.ok(
      /if \(client\.backchannelLogoutUri\) \{\s*const \{ accountId \} = session;\s*back\.push\(client\.backchannelLogout\(accountId, sid\)/.test(source),
      'end_session.js calls it',
    );
    // It is where the token is sent: nothing else of the library POSTs one.
    const model = librarySource('models/client.js');
    assert.ok(
      /async backchannelLogout\(sub, sid\) \{[\s\S]*?fetchRequest\(provider, new URL\(this\.backchannelLogoutUri\)/.test(model),
      'models/client.js sends it',
    );
  });
});

describe('oidc-provider sends no logout token itself', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let receiver: LogoutReceiver;
  before(async () => {
    receiver = await LogoutReceiver.start();
  });
  after(() => receiver?.close());

  it("the provider's client of an application with a back-channel logout URI resolves at once and sends nothing", async () => {
    const project = await createProject(svc);
    const logoutUri = receiver.endpoint();
    const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'rp',
        redirectUris: ['http://127.0.0.1:65530/cb'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'client_secret_basic',
        devMode: true,
        backchannelLogoutUri: logoutUri,
        backchannelLogoutSessionRequired: true,
      },
    });
    assert.equal(res.status, 201, res.text);
    const provider = svc.app.get(ProviderHolder).provider;
    const client = await provider.Client.find(res.body.clientId);
    assert.ok(client, 'the application is a client');
    assert.equal(client.backchannelLogoutUri, logoutUri, 'its metadata reached oidc-provider');
    assert.equal(client.backchannelLogoutSessionRequired, true);
    // Unpatched, the call POSTs before it resolves (here it would reject: oidc-provider refuses loopback itself).
    await client.backchannelLogout('a-user', 'a-sid');
    assert.equal(receiver.received.length, 0);
  });
});
