import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderHolder } from '../../../src/oidc/provider/provider.holder.js';
import { ACCOUNT_CLIENT_ID } from '../../../src/oidc/provider/account-client.js';
import { createOidcApp, createProject } from '../support/oidc-fixtures.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';
import { useService } from '../../support/fixtures.js';

/** What extensions/client-reuse.ts wraps: the static `Client.find`, which hashes a dynamic client's metadata per look-up. */
describe('contract: Client.find', () => {
  it('is a static finder that reads the adapter, then finds the Client built for the same metadata by its hash', () => {
    assert.equal(typeof unpatchedProvider().Client.find, 'function');
    const source = librarySource('models/client.js');
    assert.match(source, /const properties = await this\.adapter\.find\(id\);/);
    assert.match(
      source,
      /const propHash = crypto\.hash\('sha256', JSON\.stringify\(properties\), 'base64url'\);\s*let client = dynamicClients\.get\(propHash\);/,
    );
  });
});

describe('the same Client for an unchanged registration, a new one once it changed or went', () => {
  const svc = useService();
  const apps = (p: { orgId: string; projectId: string }) => `/management/v1/orgs/${p.orgId}/projects/${p.projectId}/apps`;

  it('gives the same Client again, the changed one after a change, and none after the removal', async () => {
    const project = await createProject(svc);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const provider = svc.app.get(ProviderHolder).provider;
    const first = await provider.Client.find(app.clientId);
    assert.ok(first, 'the application is a client');
    assert.equal(await provider.Client.find(app.clientId), first, 'unchanged registration: the same Client');

    const newUri = 'http://127.0.0.1:65530/changed';
    const changed = await svc.api('PATCH', `${apps(project)}/${app.appId}`, { token: svc.adminToken, body: { redirectUris: [newUri] } });
    assert.equal(changed.status, 200, changed.text);
    const after = await provider.Client.find(app.clientId);
    assert.notEqual(after, first, 'a change is a new Client at once in the process that made it');
    assert.deepEqual(after!.redirectUris, [newUri]);

    const removed = await svc.api('DELETE', `${apps(project)}/${app.appId}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    assert.equal(await provider.Client.find(app.clientId), undefined, 'a removed application is no client');
  });

  it('answers static clients and unknown ids as the library does', async () => {
    const provider = svc.app.get(ProviderHolder).provider;
    const account = await provider.Client.find(ACCOUNT_CLIENT_ID);
    assert.equal(account?.clientId, ACCOUNT_CLIENT_ID);
    assert.equal(await provider.Client.find(ACCOUNT_CLIENT_ID), account);
    assert.equal(await provider.Client.find('no-such-client'), undefined);
  });
});
