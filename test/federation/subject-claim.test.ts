import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

const SECRET = 'upstream-client-secret-5a0c';

/**
 * docs/federation.md, `subjectClaim`: an OIDC IdP whose identities are keyed by another claim than `sub` (Entra ID's
 * `oid`, the same for a person in every application registration, where `sub` differs per registration), against the
 * reference oidc-provider as the upstream.
 */
describe('federation: the subject claim of an OIDC IdP', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let upstream: UpstreamIdp;
  let orgId: string;
  let app: OidcApp;
  let owner: { userId: string; token: string };
  let byOid: string;
  const idps = () => `/management/v1/orgs/${orgId}/idps`;

  const addIdp = async (key: string, settings: Record<string, unknown>) => {
    const res = await svc.api('POST', idps(), {
      token: owner.token,
      body: { type: 'oidc', name: `Entra ${key}`, issuer: upstream.issuer, clientId: `portcullis-${key}`, clientSecret: SECRET, ...settings },
    });
    assert.equal(res.status, 201, res.text);
    upstream.addClient({ client_id: `portcullis-${key}`, client_secret: SECRET, redirect_uris: [res.body.callbackUrl] });
    return res.body.id as string;
  };

  const signIn = async (idpId: string, account: string) => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    return { browser, page: await browser.signInUpstream(await browser.choose(await browser.authorize(app), idpId), account) };
  };

  before(async () => {
    upstream = await startUpstreamIdp({
      // Two application registrations of one Entra person: a `sub` each, one `oid`.
      'alice-sub-app1': { oid: 'entra-oid-alice', preferred_username: unique('alice'), email: 'alice@contoso.example', email_verified: true },
      'alice-sub-app2': { oid: 'entra-oid-alice', preferred_username: unique('alice.again') },
      'no-oid-sub': { preferred_username: unique('nobody') },
      'numeric-oid-sub': { oid: 12345, preferred_username: unique('numeric') },
    });
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
    byOid = await addIdp('oid', { subjectClaim: 'oid', jit: true });
  });

  after(() => upstream?.close());

  it('reads subjectClaim (default sub; an IdP stored before it existed reads sub)', async () => {
    assert.equal((await svc.api('GET', `${idps()}/${byOid}`, { token: owner.token })).body.subjectClaim, 'oid');
    const plain = await svc.api('POST', idps(), {
      token: owner.token,
      body: { type: 'oidc', name: unique('plain'), issuer: upstream.issuer, clientId: 'plain', clientSecret: SECRET },
    });
    assert.equal(plain.status, 201, plain.text);
    assert.equal((await svc.api('GET', `${idps()}/${plain.body.id}`, { token: owner.token })).body.subjectClaim, 'sub');
    // As an IdP made before the field existed is stored: no subjectClaim in its settings.
    const [row] = await svc.dataSource.query('SELECT settings FROM identity_providers WHERE id = ?', [plain.body.id]);
    const { subjectClaim: _dropped, ...older } = JSON.parse(row.settings);
    await svc.dataSource.query('UPDATE identity_providers SET settings = ? WHERE id = ?', [JSON.stringify(older), plain.body.id]);
    assert.equal((await svc.api('GET', `${idps()}/${plain.body.id}`, { token: owner.token })).body.subjectClaim, 'sub');
  });

  it('the identity is stored under the claim’s value, and a sign-in with another sub but the same oid is the same person', async () => {
    const first = await signIn(byOid, 'alice-sub-app1');
    const claims = await first.browser.tokens(app, first.page);
    const userId = String(claims.sub);
    const identities = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${userId}/identities`, { token: owner.token });
    assert.equal(identities.status, 200, identities.text);
    assert.deepEqual(
      identities.body.identities.map((i: { idpId: string; subject: string }) => [i.idpId, i.subject]),
      [[byOid, 'entra-oid-alice']],
    );

    const users = await countRows(svc, 'users');
    const second = await signIn(byOid, 'alice-sub-app2');
    assert.equal((await second.browser.tokens(app, second.page)).sub, userId, 'the existing link, found by oid');
    assert.equal(await countRows(svc, 'users'), users, 'no second user');
    assert.equal((await searchEvents(svc, { event_types: ['user.idp.link.added'], aggregate_id: userId })).length, 1);
  });

  it('an answer without the claim as a string is refused with a page and an event; nothing is created or linked', async () => {
    for (const account of ['no-oid-sub', 'numeric-oid-sub']) {
      const users = await countRows(svc, 'users');
      const links = await countRows(svc, 'user_identities');
      const { page } = await signIn(byOid, account);
      assert.equal(page.status, 400, `${account}: ${page.status} ${page.text.slice(0, 300)}`);
      assert.match(page.text, /data-error="subject_missing"/, account);
      assert.match(page.text, /the claim that names you is missing/, account);
      assert.equal(await countRows(svc, 'users'), users, account);
      assert.equal(await countRows(svc, 'user_identities'), links, account);
    }
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: byOid });
    assert.deepEqual(
      failed.map((e) => e.payload),
      [
        { idpId: byOid, reason: 'subject_missing' },
        { idpId: byOid, reason: 'subject_missing' },
      ],
    );
  });

  it('subjectClaim is fixed once identities exist: 409 naming it, nothing changed; free before', async () => {
    const refused = await svc.api('PATCH', `${idps()}/${byOid}`, { token: owner.token, body: { subjectClaim: 'sub', name: 'Renamed' } });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.body.message, /subjectClaim/);
    assert.deepEqual(
      refused.body.details.map((d: { field: string }) => d.field),
      ['subjectClaim'],
    );
    const kept = await svc.api('GET', `${idps()}/${byOid}`, { token: owner.token });
    assert.equal(kept.body.subjectClaim, 'oid');
    assert.equal(kept.body.name, 'Entra oid', 'nothing of the PATCH was applied');
    assert.equal((await svc.api('PATCH', `${idps()}/${byOid}`, { token: owner.token, body: { subjectClaim: 'oid' } })).status, 200, 'the same claim again');

    const created = await svc.api('POST', idps(), {
      token: owner.token,
      body: { type: 'oidc', name: unique('fresh'), issuer: upstream.issuer, clientId: 'fresh', clientSecret: SECRET },
    });
    assert.equal(created.status, 201, created.text);
    const fresh = created.body.id as string;
    const changed = await svc.api('PATCH', `${idps()}/${fresh}`, { token: owner.token, body: { subjectClaim: 'oid' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.subjectClaim, 'oid');
    const [event] = (await searchEvents(svc, { event_types: ['org.idp.changed'], aggregate_id: fresh })).slice(-1);
    assert.equal(event.payload.subjectClaim, 'oid');
  });
});
