import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { verifiedDomain } from './support/domains.js';
import { idpMetadataXml } from './support/saml-metadata.js';

/** A public address as an IP literal: accepted by the outbound check without a DNS look-up. */
const ISSUER = 'https://93.184.215.14/tenant/v2.0';
const SECRET = 'upstream-client-secret-4f1c9a';

const oidcIdp = (extra: Record<string, unknown> = {}) => ({
  type: 'oidc',
  name: unique('Contoso'),
  issuer: ISSUER,
  clientId: 'portcullis',
  clientSecret: SECRET,
  ...extra,
});

/** docs/federation.md: an organization's identity providers and its users' linked identities, by the management API. */
describe('federation API: identity providers and linked identities', () => {
  const svc = useService();
  let orgId: string;
  let owner: { userId: string; token: string };
  let manager: { userId: string; token: string };
  const idps = (org = orgId) => `/management/v1/orgs/${org}/idps`;
  const as = (token: string, method: string, path: string, body?: unknown) => svc.api(method, path, { token, body });

  before(async () => {
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    manager = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
    await verifiedDomain(svc, orgId, 'contoso.example');
  });

  const human = async (org = orgId) => {
    const res = await svc.api('POST', `/management/v1/orgs/${org}/users/human`, {
      token: svc.adminToken,
      body: { userName: unique('person'), profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: 'ada@example.com' } },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId as string;
  };

  it('an ORG_OWNER adds an OIDC IdP: 201 with its callback URL; reads never show the secret, which is stored encrypted; the event has none', async () => {
    const created = await as(
      owner.token,
      'POST',
      idps(),
      oidcIdp({ domains: ['Contoso.example'], link: { by: 'externalId', from: 'oid' }, jit: true, mfa: 'upstream', scopes: ['profile', 'email'] }),
    );
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.callbackUrl, `${svc.url}/ui/login/idp/${created.body.id}/callback`);

    const one = await as(owner.token, 'GET', `${idps()}/${created.body.id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      { ...one.body, name: undefined, createdAt: undefined, changedAt: undefined },
      {
        id: created.body.id,
        type: 'oidc',
        name: undefined,
        issuer: ISSUER,
        clientId: 'portcullis',
        authMethod: 'client_secret_basic',
        hasClientSecret: true,
        scopes: ['openid', 'profile', 'email'],
        subjectClaim: 'sub',
        acceptIdJag: false,
        claims: { userName: 'preferred_username', email: 'email', givenName: 'given_name', familyName: 'family_name' },
        domains: ['contoso.example'],
        link: { by: 'externalId', from: 'oid' },
        jit: true,
        mfa: 'upstream',
        callbackUrl: created.body.callbackUrl,
        reached: true,
        createdAt: undefined,
        changedAt: undefined,
      },
    );
    const list = await as(owner.token, 'GET', idps());
    assert.equal(list.status, 200);
    assert.equal(list.body.total, list.body.idps.length);
    assert.ok(list.body.idps.some((i: { id: string }) => i.id === created.body.id));
    assert.ok(!list.text.includes(SECRET) && !one.text.includes(SECRET));

    const [stored] = await svc.dataSource.query('SELECT client_secret, settings FROM identity_providers WHERE id = ?', [created.body.id]);
    assert.ok(stored.client_secret.startsWith('v1.') && !stored.client_secret.includes(SECRET) && !stored.settings.includes(SECRET));
    const [added] = await searchEvents(svc, { event_types: ['org.idp.added'], aggregate_id: created.body.id });
    assert.equal(added.aggregate.resourceOwner, orgId);
    assert.equal(added.editor.userId, owner.userId);
    assert.ok(!JSON.stringify(added).includes(SECRET));
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    const before = await countRows(svc, 'identity_providers');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ issuer: undefined }, /issuer is required/],
      [{ issuer: 'ftp://idp.example/' }, /absolute https URL/],
      [{ issuer: 'https://user:pw@93.184.215.14/' }, /credentials/],
      [{ issuer: 'https://93.184.215.14/?tenant=x' }, /query or fragment/],
      [{ issuer: 'https://127.0.0.1/' }, /non-public address.*OUTBOUND_ALLOW_PRIVATE_NETWORKS/],
      [{ issuer: 'https://[::ffff:7f00:1]/' }, /non-public address/],
      // A name that resolves, to a non-public address, is refused at creation as before (docs/federation.md).
      [{ issuer: 'https://localhost/' }, /issuer: localhost resolves to a non-public address/],
      [
        { type: 'saml', issuer: undefined, clientId: undefined, clientSecret: undefined, metadataUrl: 'https://localhost/metadata' },
        /metadataUrl: localhost resolves to a non-public address/,
      ],
      [{ clientId: undefined }, /clientId is required/],
      [{ clientSecret: undefined }, /clientSecret is required for client_secret_basic/],
      [{ authMethod: 'private_key_jwt' }, /private_key_jwt uses no client secret/],
      [{ authMethod: 'none' }, /authMethod/],
      [{ type: 'saml' }, /issuer is not a field of a SAML identity provider/],
      // SAML metadata by URL follows the outbound rules of an issuer (docs/federation.md, "Identity providers").
      [
        { type: 'saml', issuer: undefined, clientId: undefined, clientSecret: undefined, metadataUrl: 'https://127.0.0.1/metadata' },
        /metadataUrl: 127.0.0.1 resolves to a non-public address/,
      ],
      [
        { type: 'saml', issuer: undefined, clientId: undefined, clientSecret: undefined, metadataUrl: 'http://93.184.215.14/metadata' },
        /metadataUrl must be an absolute https URL/,
      ],
      [{ metadataUrl: 'https://93.184.215.14/metadata' }, /metadataUrl is not a field of an OpenID Connect identity provider/],
      [{ type: 'saml', issuer: undefined, clientId: undefined, clientSecret: undefined, metadataXml: `<x>${' '.repeat(100_000)}</x>` }, /metadataXml/],
      [{ type: 'ldap' }, /type/],
      [{ name: '   ' }, /name must not be blank/],
      [{ domains: ['not a domain'] }, /not a domain name/],
      [{ domains: ['a.example', 'A.example'] }, /domains/],
      [{ link: { by: 'phone', from: 'sub' } }, /by/],
      [{ link: { by: 'email', from: 'e mail' } }, /from/],
      [{ claims: { userName: 'upn', password: 'x' } }, /password/],
      [{ scopes: ['openid', 'a"b'] }, /scope tokens/],
      [{ mfa: 'sometimes' }, /mfa/],
      [{ subjectClaim: 'object id' }, /subjectClaim must be a claim name/],
      [{ subjectClaim: '' }, /subjectClaim/],
      [{ subjectClaim: 7 }, /subjectClaim/],
      [{ type: 'saml', issuer: undefined, clientId: undefined, clientSecret: undefined, subjectClaim: 'oid' }, /subjectClaim is not a field of a SAML/],
      [{ clientSecretX: 'x' }, /clientSecretX/],
    ];
    for (const [change, message] of cases) {
      const res = await as(owner.token, 'POST', idps(), oidcIdp(change));
      assert.equal(res.status, 400, `${JSON.stringify(change)} → ${res.status} ${res.text}`);
      assert.match(res.body.message + JSON.stringify(res.body.details ?? []), message, JSON.stringify(change));
    }
    assert.equal(await countRows(svc, 'identity_providers'), before);
  });

  it('an issuer or metadata URL whose host does not resolve yet is accepted, reads reached: false, and stays so until a call reaches it', async () => {
    // RFC 6761 §6.4: names under .invalid never resolve.
    const oidc = await as(owner.token, 'POST', idps(), oidcIdp({ issuer: 'https://login.not-yet.invalid/tenant/v2.0' }));
    assert.equal(oidc.status, 201, oidc.text);
    const read = await as(owner.token, 'GET', `${idps()}/${oidc.body.id}`);
    assert.equal(read.body.reached, false);
    assert.equal(read.body.issuer, 'https://login.not-yet.invalid/tenant/v2.0');
    const listed = (await as(owner.token, 'GET', idps())).body.idps.find((i: { id: string }) => i.id === oidc.body.id);
    assert.equal(listed.reached, false);
    // The test sign-in calls the upstream: it cannot be reached, and the IdP still says so.
    const tested = await as(owner.token, 'POST', `${idps()}/${oidc.body.id}/test`);
    assert.equal(tested.status, 503, tested.text);
    assert.match(tested.body.message, /could not be reached/);
    assert.equal((await as(owner.token, 'GET', `${idps()}/${oidc.body.id}`)).body.reached, false);
    // A new issuer is looked at again: one that resolves reads reached, one that does not reads not reached.
    const moved = await as(owner.token, 'PATCH', `${idps()}/${oidc.body.id}`, { issuer: ISSUER, clientSecret: SECRET });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.reached, true);
    const renamed = await as(owner.token, 'PATCH', `${idps()}/${oidc.body.id}`, { issuer: 'https://other.not-yet.invalid/', clientSecret: SECRET });
    assert.equal(renamed.body.reached, false);
    assert.equal((await as(owner.token, 'PATCH', `${idps()}/${oidc.body.id}`, { name: 'Still waiting' })).body.reached, false, 'other fields keep it');

    const saml = await as(owner.token, 'POST', idps(), {
      type: 'saml',
      name: unique('Okta'),
      metadataUrl: 'https://contoso.not-yet.invalid/app/sso/saml/metadata',
    });
    assert.equal(saml.status, 201, saml.text);
    assert.ok(saml.body.spEntityId && saml.body.acsUrl && saml.body.spMetadataUrl, 'this SP is known at once');
    const samlRead = await as(owner.token, 'GET', `${idps()}/${saml.body.id}`);
    assert.equal(samlRead.body.reached, false);
    assert.equal(samlRead.body.metadataUrl, 'https://contoso.not-yet.invalid/app/sso/saml/metadata');
    assert.equal(samlRead.body.entityId, undefined, 'no metadata read yet');
    assert.equal(samlRead.body.ssoUrl, undefined);
    const spMetadata = await svc.api('GET', new URL(saml.body.spMetadataUrl).pathname);
    assert.equal(spMetadata.status, 200, 'the SP metadata to hand to the upstream is there already');
    const samlTested = await as(owner.token, 'POST', `${idps()}/${saml.body.id}/test`);
    assert.equal(samlTested.status, 503, samlTested.text);
    // Every call checks the addresses again: a host that came to resolve to a non-public address is not called.
    let connections = 0;
    const local = createServer((_req, res) => res.end());
    local.on('connection', () => connections++);
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const port = (local.address() as AddressInfo).port;
      const [row] = await svc.dataSource.query('SELECT settings FROM identity_providers WHERE id = ?', [oidc.body.id]);
      const settings = { ...JSON.parse(row.settings), issuer: `https://127.0.0.1:${port}` };
      await svc.dataSource.query('UPDATE identity_providers SET settings = ? WHERE id = ?', [JSON.stringify(settings), oidc.body.id]);
      const refused = await as(owner.token, 'POST', `${idps()}/${oidc.body.id}/test`);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(connections, 0, 'nothing connected to the non-public address');
    } finally {
      local.close();
    }

    const inline = await as(owner.token, 'PATCH', `${idps()}/${saml.body.id}`, { metadataXml: idpMetadataXml() });
    assert.equal(inline.status, 200, inline.text);
    assert.deepEqual([inline.body.reached, inline.body.entityId, inline.body.metadataUrl], [true, 'https://idp.example/saml', null]);
  });

  it('a domain leads to one IdP: 409 for a verified domain another IdP of the organization claims', async () => {
    const domain = await verifiedDomain(svc, orgId, `${unique('d').toLowerCase()}.example`);
    assert.equal((await as(owner.token, 'POST', idps(), oidcIdp({ domains: [domain] }))).status, 201);
    const clash = await as(owner.token, 'POST', idps(), oidcIdp({ domains: [domain.toUpperCase()] }));
    assert.equal(clash.status, 409, clash.text);
    assert.match(clash.body.message, new RegExp(domain));
  });

  it('PATCH changes what is sent; a new secret is stored encrypted and the event says only that it changed; DELETE removes the IdP and its links', async () => {
    const { id } = (await as(owner.token, 'POST', idps(), oidcIdp())).body;
    const changed = await as(owner.token, 'PATCH', `${idps()}/${id}`, { name: 'Renamed', clientSecret: 'a-new-secret-9b2e', jit: true, link: null });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.name, 'Renamed');
    assert.equal(changed.body.jit, true);
    assert.equal(changed.body.issuer, ISSUER);
    const [event] = await searchEvents(svc, { event_types: ['org.idp.changed'], aggregate_id: id });
    assert.equal(event.payload.clientSecretChanged, true);
    assert.ok(!JSON.stringify(event).includes('a-new-secret-9b2e'));
    assert.equal((await as(owner.token, 'PATCH', `${idps()}/${id}`, { type: 'saml' })).status, 400, 'the type never changes');
    assert.equal(
      (await as(owner.token, 'PATCH', `${idps()}/${id}`, { authMethod: 'client_secret_post' })).status,
      200,
      'the stored secret serves the other secret method',
    );

    const userId = await human();
    assert.equal(
      (await as(manager.token, 'POST', `/management/v1/orgs/${orgId}/users/${userId}/identities`, { idpId: id, subject: 'upstream-sub-1' })).status,
      201,
    );
    assert.equal((await as(owner.token, 'DELETE', `${idps()}/${id}`)).status, 204);
    assert.equal((await as(owner.token, 'GET', `${idps()}/${id}`)).status, 404);
    assert.equal((await as(owner.token, 'DELETE', `${idps()}/${id}`)).status, 404);
    assert.deepEqual((await as(manager.token, 'GET', `/management/v1/orgs/${orgId}/users/${userId}/identities`)).body.identities, []);
    assert.equal((await searchEvents(svc, { event_types: ['org.idp.removed'], aggregate_id: id })).length, 1);
  });

  it('only an ORG_OWNER of that organization manages its IdPs: 403 below it, 404 outside it or for an unknown organization', async () => {
    const { id } = (await as(owner.token, 'POST', idps(), oidcIdp())).body;
    const otherOrg = (await createOrg(svc)).id;
    const stranger = await createCaller(svc, otherOrg, { org: ['ORG_OWNER'] });
    // A role short of ORG_OWNER is 403; an organization outside the caller's reach is 404 (docs/product-rules.md, "API").
    for (const [token, who, status] of [
      [manager.token, 'ORG_USER_MANAGER', 403],
      [stranger.token, "another organization's owner", 404],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', idps()],
        ['POST', idps(), oidcIdp()],
        ['GET', `${idps()}/${id}`],
        ['PATCH', `${idps()}/${id}`, { name: 'x' }],
        ['DELETE', `${idps()}/${id}`],
      ] as const) {
        const res = await as(token, method, path, body);
        assert.equal(res.status, status, `${who}: ${method} ${path} → ${res.status}`);
      }
    }
    assert.equal((await as(owner.token, 'GET', `${idps()}/${id}`)).status, 200, 'nothing changed');
    assert.equal((await as(svc.adminToken, 'GET', idps('no-such-org'))).status, 404);
    assert.equal((await as(svc.adminToken, 'GET', `${idps(otherOrg)}/${id}`)).status, 404, "another organization's IdP id is unknown here");
  });

  it('linking follows the acting rule; a user holding any role is linked by an IAM_OWNER only; one subject per user and IdP', async () => {
    const { id: idpId } = (await as(owner.token, 'POST', idps(), oidcIdp())).body;
    const identities = (userId: string) => `/management/v1/orgs/${orgId}/users/${userId}/identities`;
    const alice = await human();
    const bob = await human();
    const linked = await as(manager.token, 'POST', identities(alice), { idpId, subject: 'alice-oid' });
    assert.equal(linked.status, 201, linked.text);
    assert.equal(linked.body.subject, 'alice-oid');
    assert.equal((await as(manager.token, 'POST', identities(bob), { idpId, subject: 'alice-oid' })).status, 409, 'the subject is taken');
    assert.equal((await as(manager.token, 'POST', identities(alice), { idpId, subject: 'alice-second' })).status, 409, 'alice is linked to this IdP already');
    assert.equal((await as(manager.token, 'POST', identities(bob), { idpId: 'no-such-idp', subject: 'x' })).status, 404);
    assert.equal((await as(manager.token, 'POST', identities(bob), { idpId, subject: ' padded ' })).status, 400);
    const list = await as(manager.token, 'GET', identities(alice));
    assert.deepEqual(
      list.body.identities.map((i: { idpId: string; subject: string; lastUsedAt: null }) => [i.idpId, i.subject, i.lastUsedAt]),
      [[idpId, 'alice-oid', null]],
    );
    const [event] = await searchEvents(svc, { event_types: ['user.idp.link.added'], aggregate_id: alice });
    assert.deepEqual(event.payload, { idpId, subject: 'alice-oid' });

    // A user who holds a role: an ORG_OWNER (who holds every role of that user) still may not link it.
    const roleHolder = await human();
    assert.equal(
      (await svc.api('PUT', `/management/v1/orgs/${orgId}/members/${roleHolder}`, { token: svc.adminToken, body: { roles: ['ORG_USER_MANAGER'] } })).status,
      200,
    );
    const refused = await as(owner.token, 'POST', identities(roleHolder), { idpId, subject: 'holder-oid' });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /IAM_OWNER/);
    assert.equal((await as(svc.adminToken, 'POST', identities(roleHolder), { idpId, subject: 'holder-oid' })).status, 201);
    // The acting rule: a manager does not act on an owner (it lacks ORG_OWNER).
    assert.equal((await as(manager.token, 'GET', identities(owner.userId))).status, 403);

    assert.equal((await as(manager.token, 'DELETE', `${identities(alice)}/${idpId}/alice-oid`)).status, 204);
    assert.equal((await as(manager.token, 'DELETE', `${identities(alice)}/${idpId}/alice-oid`)).status, 404);
    assert.equal((await searchEvents(svc, { event_types: ['user.idp.link.removed'], aggregate_id: alice })).length, 1);
  });

  it('removing the organization removes its IdPs, each with its event', async () => {
    const org = (await createOrg(svc)).id;
    const domain = await verifiedDomain(svc, org, `${unique('gone').toLowerCase()}.example`);
    const { id } = (await as(svc.adminToken, 'POST', idps(org), oidcIdp({ domains: [domain] }))).body;
    assert.equal((await svc.api('DELETE', `/admin/v1/orgs/${org}`, { token: svc.adminToken })).status, 204);
    assert.deepEqual(await svc.dataSource.query('SELECT id FROM identity_providers WHERE id = ?', [id]), []);
    assert.deepEqual(await svc.dataSource.query('SELECT domain FROM idp_domains WHERE idp_id = ?', [id]), []);
    assert.equal((await searchEvents(svc, { event_types: ['org.idp.removed'], aggregate_id: id })).length, 1);
  });
});
