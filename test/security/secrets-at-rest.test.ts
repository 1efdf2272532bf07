import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createCaller, createOrg, useService } from '../support/fixtures.js';
import { findSecretsAtRest, listTables } from '../support/secret-scan.js';

describe('secrets at rest', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-admin-password-42' });

  it('no table holds the plain text of any password, secret, token or private key the API issued', async () => {
    const secrets: string[] = [svc.adminToken, 'bootstrap-admin-password-42', readFileSync(join(svc.dataDir, 'master.key'), 'utf8').trim()];
    const org = await createOrg(svc);
    const admin = svc.adminToken;
    const base = `/management/v1/orgs/${org.id}`;

    const caller = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    secrets.push(caller.token);
    const secret = await svc.api('POST', `${base}/users/${caller.userId}/secret`, { token: admin, body: {} });
    secrets.push(secret.body.clientSecret);
    const key = await svc.api('POST', `${base}/users/${caller.userId}/keys`, { token: admin, body: {} });
    secrets.push(key.body.keyDetails.key, pemBody(key.body.keyDetails.key));

    const human = await svc.api('POST', `${base}/users/human`, {
      token: admin,
      body: { userName: 'jane', profile: { firstName: 'Jane', lastName: 'Doe' }, email: { email: 'jane@example.com' }, password: 'janes-plain-password' },
    });
    assert.equal(human.status, 201);
    secrets.push('janes-plain-password');

    const project = await svc.api('POST', `${base}/projects`, { token: admin, body: { name: 'p' } });
    const app = await svc.api('POST', `${base}/projects/${project.body.id}/apps/oidc`, {
      token: admin,
      body: {
        name: 'web',
        redirectUris: ['https://app.example.com/cb'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'client_secret_basic',
      },
    });
    secrets.push(app.body.clientSecret);
    const jwtApp = await svc.api('POST', `${base}/projects/${project.body.id}/apps/api`, {
      token: admin,
      body: { name: 'api', authMethod: 'private_key_jwt' },
    });
    const appKey = await svc.api('POST', `${base}/projects/${project.body.id}/apps/${jwtApp.body.appId}/keys`, { token: admin, body: {} });
    secrets.push(appKey.body.keyDetails.key, pemBody(appKey.body.keyDetails.key));
    const webhook = await svc.api('POST', `${base}/webhooks`, { token: admin, body: { url: 'https://93.184.215.14/hook' } });
    assert.equal(webhook.status, 201, webhook.text);
    // The webhook secret in full and its key part (what an HMAC is keyed with).
    secrets.push(webhook.body.secret, webhook.body.secret.slice('whsec_'.length));

    assert.ok(
      secrets.every((s) => typeof s === 'string' && s.length >= 16),
      'every secret was issued',
    );
    assert.ok((await listTables(svc.dataSource)).length >= 10, 'the scan reads the whole schema');
    // The scan itself can find things: the (public) client id is in the applications table and its event.
    assert.deepEqual((await findSecretsAtRest(svc.dataSource, [app.body.clientId])).sort(), [
      `applications: ${app.body.clientId.slice(0, 6)}…`,
      `events: ${app.body.clientId.slice(0, 6)}…`,
    ]);
    assert.deepEqual(await findSecretsAtRest(svc.dataSource, secrets), []);
  });
});

/** The base64 body of a PEM key, minus armour and line breaks, as it would appear if stored. */
function pemBody(pem: string): string {
  return pem.split('\n').filter((l) => l && !l.startsWith('-----'))[1];
}
