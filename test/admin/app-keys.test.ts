import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import {
  INVALID_TOKENS,
  assertNoSecretsIn,
  assertPrivateKeyNotStored,
  assertRsaKeyMatches,
  badRequest,
  refused,
  row,
  setUpOrg,
  theEvent,
  tokenOption,
} from './helpers.js';
import type { OrgSetup } from './helpers.js';

interface App {
  orgId: string;
  projectId: string;
  appId: string;
  clientId: string;
}

describe('management API: application keys', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let projectA: string;
  let projectA2: string;
  let oidcJwtApp: App;
  let apiJwtApp: App;
  let secretApp: App;
  let appB: App;
  const keys = (app: Pick<App, 'orgId' | 'projectId' | 'appId'>) => `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}/keys`;

  async function project(org: OrgSetup): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/projects`, { token: org.owner.token, body: { name: unique('p') } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  async function app(org: OrgSetup, projectId: string, kind: 'oidc' | 'api', authMethod: string): Promise<App> {
    const body =
      kind === 'api'
        ? { name: unique('api'), authMethod }
        : {
            name: unique('web'),
            redirectUris: ['https://app.example.com/cb'],
            responseTypes: ['code'],
            grantTypes: ['authorization_code'],
            authMethod,
          };
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/projects/${projectId}/apps/${kind}`, { token: org.owner.token, body });
    assert.equal(res.status, 201, res.text);
    return { orgId: org.org.id, projectId, appId: res.body.appId, clientId: res.body.clientId };
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    projectA = await project(a);
    projectA2 = await project(a);
    oidcJwtApp = await app(a, projectA, 'oidc', 'private_key_jwt');
    apiJwtApp = await app(a, projectA, 'api', 'private_key_jwt');
    secretApp = await app(a, projectA, 'oidc', 'client_secret_basic');
    appB = await app(b, await project(b), 'api', 'private_key_jwt');
  });

  it('adds a key to a private_key_jwt OIDC application: PEM RSA 2048 shown once, public half stored, event written', async () => {
    const res = await svc.api('POST', keys(oidcJwtApp), { token: a.owner.token, body: {} });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['keyDetails', 'keyId']);
    assert.deepEqual(Object.keys(res.body.keyDetails).sort(), ['clientId', 'key', 'keyId', 'type']);
    const { keyId, keyDetails } = res.body;
    assert.equal(keyDetails.type, 'application');
    assert.equal(keyDetails.keyId, keyId);
    assert.equal(keyDetails.clientId, oidcJwtApp.clientId);

    const stored = await row(svc, 'SELECT owner_type, owner_id, org_id, public_key, expires_at FROM public_keys WHERE id = ?', [keyId]);
    assert.equal(stored.owner_type, 'application');
    assert.equal(stored.owner_id, oidcJwtApp.appId);
    assert.equal(stored.org_id, a.org.id);
    assert.equal(stored.expires_at, null);
    assertRsaKeyMatches(keyDetails.key, stored.public_key);
    await assertPrivateKeyNotStored(svc, keyDetails.key);

    const event = await theEvent(svc, 'project.application.key.added', projectA, (e) => e.payload.keyId === keyId);
    assert.equal(event.aggregate.type.type, 'project');
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { appId: oidcJwtApp.appId, keyId, keyType: 'RSA' });
    assertNoSecretsIn(event.payload, [keyDetails.key]);
  });

  it('adds keys to a private_key_jwt API application, each a new key pair (also with no body at all)', async () => {
    const first = await svc.api('POST', keys(apiJwtApp), { token: a.owner.token, body: {} });
    const second = await svc.api('POST', keys(apiJwtApp), { token: a.owner.token });
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, second.text);
    assert.notEqual(first.body.keyId, second.body.keyId);
    assert.notEqual(first.body.keyDetails.key, second.body.keyDetails.key);
    const rows = await svc.dataSource.query("SELECT id, public_key FROM public_keys WHERE owner_type = 'application' AND owner_id = ? ORDER BY id", [
      apiJwtApp.appId,
    ]);
    assert.deepEqual(rows.map((r: { id: string }) => r.id).sort(), [first.body.keyId, second.body.keyId].sort());
    for (const res of [first, second]) {
      const stored = rows.find((r: { id: string }) => r.id === res.body.keyId);
      assertRsaKeyMatches(res.body.keyDetails.key, stored.public_key);
    }
  });

  it('refuses keys for an application that authenticates with a secret (400), and changes nothing', async () => {
    const res = await refused(svc, 400, () => svc.api('POST', keys(secretApp), { token: a.owner.token, body: {} }));
    assert.match(res.body.message, /private_key_jwt/);
  });

  it('answers a body with fields with 400 naming them, and changes nothing', async () => {
    await badRequest(svc, ['expirationDate'], () =>
      svc.api('POST', keys(oidcJwtApp), { token: a.owner.token, body: { expirationDate: '2030-01-01T00:00:00Z' } }),
    );
    await badRequest(svc, ['publicKey', 'type'], () =>
      svc.api('POST', keys(oidcJwtApp), { token: a.owner.token, body: { publicKey: 'mine', type: 'application' } }),
    );
  });

  it('answers 401 without a valid token, and changes nothing', async () => {
    for (const token of INVALID_TOKENS) {
      await refused(svc, 401, () => svc.api('POST', keys(oidcJwtApp), { ...tokenOption(token), body: {} }));
    }
  });

  it('answers 403 to an ORG_USER_MANAGER and to a member without roles, and changes nothing', async () => {
    for (const caller of [a.manager, a.member]) {
      const res = await refused(svc, 403, () => svc.api('POST', keys(oidcJwtApp), { token: caller.token, body: {} }));
      assert.match(res.body.message, /ORG_OWNER/);
    }
  });

  it('answers 404 across organizations, projects and unknown ids, and changes nothing', async () => {
    const cases: Array<[string, string, string]> = [
      ["A's owner on B's path", keys(appB), a.owner.token],
      ["A's path with B's project and application", keys({ ...appB, orgId: a.org.id }), a.owner.token],
      ["A's path with B's project and application, instance admin", keys({ ...appB, orgId: a.org.id }), svc.adminToken],
      ["A's path and project, B's application", keys({ ...oidcJwtApp, appId: appB.appId }), a.owner.token],
      ['the application under another project of the same organization', keys({ ...oidcJwtApp, projectId: projectA2 }), a.owner.token],
      ['unknown application', keys({ ...oidcJwtApp, appId: randomUUID() }), a.owner.token],
      ['unknown project', keys({ ...oidcJwtApp, projectId: randomUUID() }), a.owner.token],
      ['unknown organization', keys({ ...oidcJwtApp, orgId: randomUUID() }), svc.adminToken],
    ];
    for (const [label, path, token] of cases) {
      await refused(svc, 404, () => svc.api('POST', path, { token, body: {} }), label);
    }
  });

  it('lets an IAM_OWNER add a key in any organization', async () => {
    const res = await svc.api('POST', keys(appB), { token: svc.adminToken, body: {} });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.keyDetails.clientId, appB.clientId);
    const stored = await row(svc, 'SELECT owner_id, org_id, public_key FROM public_keys WHERE id = ?', [res.body.keyId]);
    assert.equal(stored.owner_id, appB.appId);
    assert.equal(stored.org_id, b.org.id);
    assertRsaKeyMatches(res.body.keyDetails.key, stored.public_key);
  });
});
