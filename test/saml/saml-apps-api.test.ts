import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { newSelfSignedCredentials } from '../../src/common/crypto/self-signed-credentials.js';
import { postForm } from '../oidc/support/oidc-fixtures.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { mellonMetadata } from './support/sp-metadata.js';

/**
 * SAML applications through the management API (docs/saml.md, "SAML applications"), as an organization's owner registers a service provider:
 * from its fields or from its metadata; read back with this organization's IdP; changed; removed. Bad input is a 400
 * (409 for an entity id taken) and changes nothing.
 */
describe('management API: SAML applications', () => {
  const svc = useService();
  let org: { id: string };
  let owner: { token: string; userId: string };
  let projectId: string;
  let certificate: string;
  before(async () => {
    org = await createOrg(svc);
    owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: owner.token, body: { name: unique('saml') } })).body.id;
    certificate = (await newSelfSignedCredentials('test SP')).certificatePem;
  });
  const appsPath = () => `/management/v1/orgs/${org.id}/projects/${projectId}/apps`;
  const create = (body: object) => svc.api('POST', `${appsPath()}/saml`, { token: owner.token, body });
  const base64Der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  const count = async () => Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_applications WHERE org_id = ?', [org.id]))[0].n);

  it("creates one from its fields: 201 with this organization's IdP; read back with every field and the defaults", async () => {
    const entityId = `https://${unique('sp')}.example.com/saml`;
    const res = await create({
      name: 'Wiki',
      entityId,
      acsUrls: ['https://wiki.example.com/saml/acs', 'http://127.0.0.1:8080/acs'],
      attributes: [
        { name: 'email', from: 'email' },
        { name: 'urn:oid:2.5.4.42', from: 'givenName', nameFormat: 'uri' },
        { name: 'memberOf', from: 'groups' },
      ],
    });
    assert.equal(res.status, 201, res.text);
    const idp = `${svc.config.publicUrl}/saml/v2/${org.id}`;
    assert.deepEqual(res.body, { appId: res.body.appId, idpEntityId: `${idp}/metadata`, ssoUrl: `${idp}/sso`, idpMetadataUrl: `${idp}/metadata` });
    const got = await svc.api('GET', `${appsPath()}/${res.body.appId}`, { token: owner.token });
    assert.equal(got.status, 200);
    assert.deepEqual(
      { ...got.body, clientId: undefined },
      {
        appId: res.body.appId,
        clientId: undefined,
        projectId,
        name: 'Wiki',
        type: 'saml',
        authMethod: 'none',
        access: 'everyone',
        homeUrl: null,
        entityId,
        acsUrls: ['https://wiki.example.com/saml/acs', 'http://127.0.0.1:8080/acs'],
        nameIdFormat: 'persistent',
        attributes: [
          { name: 'email', from: 'email' },
          { name: 'urn:oid:2.5.4.42', from: 'givenName', nameFormat: 'uri' },
          { name: 'memberOf', from: 'groups' },
        ],
        signAssertion: true,
        signResponse: true,
        encryptAssertion: false,
        spCertificate: null,
        requireSignedRequests: false,
        sloUrl: null,
        allowIdpInitiated: false,
        idpInitiatedRelayState: null,
        idpEntityId: `${idp}/metadata`,
        ssoUrl: `${idp}/sso`,
        idpMetadataUrl: `${idp}/metadata`,
      },
    );
    const listed = await svc.api('GET', appsPath(), { token: owner.token });
    assert.ok(listed.body.apps.some((app: { appId: string; entityId?: string }) => app.appId === res.body.appId && app.entityId === entityId));
    const [event] = await searchEvents(svc, { aggregate_id: projectId, event_types: ['project.application.added'], asc: false, limit: 1 });
    assert.equal(event!.payload.kind, 'saml');
    assert.equal(event!.payload.entityId, entityId);
  });

  it("creates one from a mellon SP's metadata: entity id, the POST ACS, Redirect SLO, certificate, signed requests", async () => {
    const entityId = `https://${unique('mellon')}.example.com/mellon/metadata`;
    const res = await create({ name: 'Mellon', metadataXml: mellonMetadata(entityId, 'https://app.example.com/mellon', base64Der(certificate)) });
    assert.equal(res.status, 201, res.text);
    const got = (await svc.api('GET', `${appsPath()}/${res.body.appId}`, { token: owner.token })).body;
    assert.equal(got.entityId, entityId);
    assert.deepEqual(got.acsUrls, ['https://app.example.com/mellon/postResponse']);
    assert.equal(got.sloUrl, 'https://app.example.com/mellon/logout');
    assert.equal(got.nameIdFormat, 'transient');
    assert.equal(got.requireSignedRequests, true);
    assert.equal(got.signAssertion, true);
    assert.equal(new X509Certificate(got.spCertificate).fingerprint256, new X509Certificate(certificate).fingerprint256);
    // Fields given win over the metadata.
    const chosen = await create({
      name: 'Mellon 2',
      metadataXml: mellonMetadata(`${entityId}/2`, 'https://app.example.com/m2', base64Der(certificate)),
      nameIdFormat: 'emailAddress',
      requireSignedRequests: false,
    });
    assert.equal(chosen.status, 201, chosen.text);
    const got2 = (await svc.api('GET', `${appsPath()}/${chosen.body.appId}`, { token: owner.token })).body;
    assert.deepEqual([got2.nameIdFormat, got2.requireSignedRequests], ['emailAddress', false]);
  });

  it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
    const before = await count();
    const ok = { name: 'Bad', entityId: `https://${unique('bad')}.example.com`, acsUrls: ['https://bad.example.com/acs'] };
    const cases: [object, string][] = [
      [{ ...ok, entityId: 'not a uri' }, 'entityId'],
      [{ ...ok, entityId: undefined }, 'entityId'],
      [{ ...ok, acsUrls: [] }, 'acsUrls'],
      [{ ...ok, acsUrls: ['http://bad.example.com/acs'] }, 'acsUrls.0'],
      [{ ...ok, acsUrls: ['https://user:pw@bad.example.com/acs'] }, 'acsUrls.0'],
      [{ ...ok, acsUrls: ['https://bad.example.com/acs#x'] }, 'acsUrls.0'],
      [{ ...ok, acsUrls: ['javascript:alert(1)'] }, 'acsUrls.0'],
      [{ ...ok, nameIdFormat: 'email' }, 'nameIdFormat'],
      [{ ...ok, attributes: [{ name: 'a', from: 'password' }] }, 'attributes.0.from'],
      [
        {
          ...ok,
          attributes: [
            { name: 'a', from: 'email' },
            { name: 'a', from: 'userName' },
          ],
        },
        'attributes.1.name',
      ],
      [{ ...ok, encryptAssertion: true }, 'encryptAssertion'],
      [{ ...ok, requireSignedRequests: true }, 'requireSignedRequests'],
      [{ ...ok, spCertificate: 'MIIBogus' }, 'spCertificate'],
      [{ ...ok, sloUrl: 'ftp://bad.example.com/slo' }, 'sloUrl'],
      [{ ...ok, metadataUrl: 'http://127.0.0.1:9/metadata' }, 'metadataUrl'],
      [{ ...ok, metadataUrl: 'https://user:pw@sp.example.com/metadata' }, 'metadataUrl'],
      [{ name: 'Both', metadataXml: '<x/>', metadataUrl: 'https://sp.example.com/metadata' }, 'metadataUrl'],
      [{ name: 'Bad', metadataXml: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><EntityDescriptor/>' }, 'metadataXml'],
      [
        { name: 'Bad', metadataXml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><IDPSSODescriptor/></EntityDescriptor>' },
        'metadataXml',
      ],
      [{ name: 'Bad', metadataXml: '<unclosed' }, 'metadataXml'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`);
      const fields = (res.body.details ?? []).map((d: { field: string }) => d.field);
      assert.ok(fields.includes(field) || res.text.includes(field), `${field} named: ${res.text}`);
    }
    assert.equal(await count(), before);
  });

  it('idpInitiatedRelayState: a URL of an ACS origin or a path from the root; created, changed, read back and cleared', async () => {
    const acsUrls = ['https://relay.example.com/saml/acs', 'http://127.0.0.1:8080/acs'];
    const fine = ['https://relay.example.com/app/home?x=1', 'http://127.0.0.1:8080/start', 'https://relay.example.com:443/p', '/dashboard', '/'];
    for (const idpInitiatedRelayState of fine) {
      const res = await create({ name: 'Relay', entityId: `https://${unique('relay')}.example.com`, acsUrls, allowIdpInitiated: true, idpInitiatedRelayState });
      assert.equal(res.status, 201, `${idpInitiatedRelayState}: ${res.text}`);
      const got = await svc.api('GET', `${appsPath()}/${res.body.appId}`, { token: owner.token });
      assert.equal(got.body.idpInitiatedRelayState, idpInitiatedRelayState);
    }
    const created = await create({ name: 'Relay', entityId: `https://${unique('relay')}.example.com`, acsUrls, idpInitiatedRelayState: '/a' });
    const path = `${appsPath()}/${created.body.appId}`;
    const changed = await svc.api('PATCH', path, { token: owner.token, body: { idpInitiatedRelayState: 'https://relay.example.com/b' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.idpInitiatedRelayState, 'https://relay.example.com/b');
    const [event] = await searchEvents(svc, { aggregate_id: created.body.appId, event_types: ['project.application.changed'], asc: false, limit: 1 });
    assert.equal(event!.payload.idpInitiatedRelayState, 'https://relay.example.com/b');
    const moved = await svc.api('PATCH', path, { token: owner.token, body: { acsUrls: ['https://elsewhere.example.com/acs'] } });
    assert.equal(moved.status, 400, 'the ACS URLs cannot leave the RelayState on another origin');
    assert.ok(
      moved.body.details.some((d: { field: string }) => d.field === 'idpInitiatedRelayState'),
      moved.text,
    );
    const cleared = await svc.api('PATCH', path, { token: owner.token, body: { idpInitiatedRelayState: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await svc.api('GET', path, { token: owner.token })).body.idpInitiatedRelayState, null);
  });

  it('idpInitiatedRelayState: another origin, "//host", "/\\host", other schemes, control characters and over 80 bytes are a 400 naming it; nothing stored', async () => {
    const before = await count();
    const ok = { name: 'Bad relay', entityId: `https://${unique('badrelay')}.example.com`, acsUrls: ['https://relay.example.com/acs'] };
    const refused = [
      'https://evil.example.com/x',
      'http://relay.example.com/x',
      'https://relay.example.com:8443/x',
      'https://relay.example.com.evil.example/x',
      'https://user@relay.example.com/x',
      '//evil.example.com/x',
      '/\\evil.example.com/x',
      '/\t/evil.example.com',
      'javascript:alert(1)',
      'data:text/html,x',
      'relative/path',
      '/a\nb',
      '/with space',
      `/${'a'.repeat(80)}`,
      `/${'é'.repeat(40)}`,
      '',
    ];
    for (const idpInitiatedRelayState of refused) {
      const res = await create({ ...ok, idpInitiatedRelayState });
      assert.equal(res.status, 400, `${JSON.stringify(idpInitiatedRelayState)}: ${res.text}`);
      assert.ok(res.text.includes('idpInitiatedRelayState'), `${JSON.stringify(idpInitiatedRelayState)} named: ${res.text}`);
    }
    assert.equal(await count(), before);
    const created = await create(ok);
    const path = `${appsPath()}/${created.body.appId}`;
    const res = await svc.api('PATCH', path, { token: owner.token, body: { idpInitiatedRelayState: '//evil.example.com' } });
    assert.equal(res.status, 400, res.text);
    assert.equal((await svc.api('GET', path, { token: owner.token })).body.idpInitiatedRelayState, null);
  });

  it('refuses an entity id another application of the organization has (409); another organization may have it', async () => {
    const entityId = `https://${unique('dup')}.example.com`;
    const body = { name: 'One', entityId, acsUrls: ['https://dup.example.com/acs'] };
    assert.equal((await create(body)).status, 201);
    const before = await count();
    const again = await create({ ...body, name: 'Two' });
    assert.equal(again.status, 409, again.text);
    assert.equal(await count(), before);
    const other = await createOrg(svc);
    const otherProject = await svc.api('POST', `/management/v1/orgs/${other.id}/projects`, { token: svc.adminToken, body: { name: unique('p') } });
    const elsewhere = await svc.api('POST', `/management/v1/orgs/${other.id}/projects/${otherProject.body.id}/apps/saml`, { token: svc.adminToken, body });
    assert.equal(elsewhere.status, 201, elsewhere.text);
  });

  it('changes its SAML fields and name, validated as a create; OIDC fields do not apply; then removes it', async () => {
    const created = await create({ name: 'Change me', entityId: `https://${unique('ch')}.example.com`, acsUrls: ['https://ch.example.com/acs'] });
    const path = `${appsPath()}/${created.body.appId}`;
    const changed = await svc.api('PATCH', path, {
      token: owner.token,
      body: { name: 'Changed', acsUrls: ['https://ch.example.com/acs2'], allowIdpInitiated: true, spCertificate: certificate, encryptAssertion: true },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      [changed.body.name, changed.body.acsUrls, changed.body.allowIdpInitiated, changed.body.encryptAssertion],
      ['Changed', ['https://ch.example.com/acs2'], true, true],
    );
    const [event] = await searchEvents(svc, { aggregate_id: created.body.appId, event_types: ['project.application.changed'], asc: false, limit: 1 });
    assert.deepEqual(Object.keys(event!.payload).sort(), [
      'acsUrls',
      'allowIdpInitiated',
      'clientId',
      'encryptAssertion',
      'name',
      'projectId',
      'spCertificate',
    ]);
    assert.equal(event!.payload.spCertificate, 'set', 'the event says a certificate is set, without it');

    for (const body of [{ redirectUris: ['https://x.example.com/cb'] }, { acsUrls: ['http://ch.example.com/acs'] }, { spCertificate: 'nope' }]) {
      const res = await svc.api('PATCH', path, { token: owner.token, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.deepEqual((await svc.api('GET', path, { token: owner.token })).body.acsUrls, ['https://ch.example.com/acs2'], 'unchanged by the refused changes');

    assert.equal((await svc.api('DELETE', path, { token: owner.token })).status, 204);
    assert.equal((await svc.api('GET', path, { token: owner.token })).status, 404);
    assert.deepEqual(await svc.dataSource.query('SELECT app_id FROM saml_applications WHERE app_id = ?', [created.body.appId]), []);
  });

  it('SAML fields do not apply to an OIDC application', async () => {
    const oidc = await svc.api('POST', `${appsPath()}/oidc`, {
      token: owner.token,
      body: {
        name: 'rp',
        redirectUris: ['https://rp.example.com/cb'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'client_secret_basic',
      },
    });
    assert.equal(oidc.status, 201, oidc.text);
    const res = await svc.api('PATCH', `${appsPath()}/${oidc.body.appId}`, { token: owner.token, body: { acsUrls: ['https://rp.example.com/acs'] } });
    assert.equal(res.status, 400, res.text);
  });

  it("a SAML application's client id serves only the IdP's own sign-in: no token for it, no redirect to another URL (its ACS included)", async () => {
    const created = await create({ name: 'Not a client', entityId: `https://${unique('nc')}.example.com`, acsUrls: ['https://nc.example.com/acs'] });
    const { clientId } = (await svc.api('GET', `${appsPath()}/${created.body.appId}`, { token: owner.token })).body;
    const token = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', client_id: clientId });
    assert.equal(token.status, 401, token.text);
    assert.equal(token.body.error, 'invalid_client');
    const authorize = await fetch(
      `${svc.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', scope: 'openid', redirect_uri: 'https://nc.example.com/acs' })}`,
      { redirect: 'manual' },
    );
    assert.equal(authorize.status, 400, await authorize.text());
  });
});
