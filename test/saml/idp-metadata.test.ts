import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
/** The OASIS schema of SAML metadata, as Debian's SimpleSAMLphp ships it (with xmldsig's and xenc's). */
const METADATA_XSD = '/usr/share/simplesamlphp/schemas/saml-schema-metadata-2.0.xsd';
const schemaMissing = !existsSync(METADATA_XSD) || !existsSync('/usr/bin/xmllint') ? 'SimpleSAMLphp or xmllint is not installed' : undefined;

/**
 * An organization's SAML IdP metadata and the instance's SAML signing keys (docs/saml.md), read as a
 * service provider's operator reads them: the metadata over HTTP without credentials, checked against the OASIS
 * schema by xmllint, its certificates parsed by Node's X.509 code; rotations through the admin API.
 */
describe('SAML IdP metadata and signing keys', () => {
  const svc = useService();
  const metadata = (orgId: string) => fetch(`${svc.url}/saml/v2/${orgId}/metadata`);
  const keys = async () =>
    (await svc.api('GET', '/admin/v1/saml/keys', { token: svc.adminToken })).body.keys as {
      keyId: string;
      status: string;
      signsFrom: string;
      notAfter: string;
    }[];
  const certificatesOf = (xml: string) => {
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    return Array.from(doc.getElementsByTagNameNS(DS, 'X509Certificate')).map((e) => new X509Certificate(Buffer.from(e.textContent!.trim(), 'base64')));
  };
  const thumbprint = (certificate: X509Certificate) => certificate.fingerprint256.replace(/:/g, '').toLowerCase();

  it("publishes the organization's entity id, endpoints by both bindings, NameID formats and the signing certificate, without credentials", async () => {
    const org = await createOrg(svc);
    const res = await metadata(org.id);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/samlmetadata\+xml/);
    const xml = await res.text();
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const base = `${svc.config.publicUrl}/saml/v2/${org.id}`;
    assert.equal(doc.documentElement!.getAttribute('entityID'), `${base}/metadata`);
    const endpoints = (name: string) => Array.from(doc.getElementsByTagNameNS(MD, name)).map((e) => [e.getAttribute('Binding'), e.getAttribute('Location')]);
    assert.deepEqual(endpoints('SingleSignOnService'), [
      [REDIRECT, `${base}/sso`],
      [POST, `${base}/sso`],
    ]);
    assert.deepEqual(endpoints('SingleLogoutService'), [
      [REDIRECT, `${base}/slo`],
      [POST, `${base}/slo`],
    ]);
    assert.deepEqual(
      Array.from(doc.getElementsByTagNameNS(MD, 'NameIDFormat')).map((e) => e.textContent),
      [
        'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
        'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      ],
    );
    const [certificate, ...others] = certificatesOf(xml);
    assert.deepEqual(others, []);
    assert.equal(certificate!.publicKey.asymmetricKeyType, 'rsa');
    assert.equal(certificate!.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    assert.ok(certificate!.verify(certificate!.publicKey), 'self-signed');
    assert.deepEqual(
      (await keys()).map((k) => [k.keyId, k.status]),
      [[thumbprint(certificate!), 'active']],
    );
    // Every organization's metadata carries the instance's key.
    const other = await createOrg(svc);
    assert.deepEqual(certificatesOf(await (await metadata(other.id)).text()).map(thumbprint), [thumbprint(certificate!)]);
  });

  it('is valid against the OASIS SAML metadata schema (xmllint)', { skip: schemaMissing && !process.env.CI ? schemaMissing : false }, async () => {
    const org = await createOrg(svc);
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-saml-metadata-'));
    try {
      writeFileSync(join(dir, 'metadata.xml'), await (await metadata(org.id)).text());
      // Throws with xmllint's message when the document does not validate.
      execFileSync('xmllint', ['--noout', '--nonet', '--schema', METADATA_XSD, join(dir, 'metadata.xml')], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 for an organization that does not exist', async () => {
    const res = await metadata('00000000-0000-4000-8000-000000000000');
    assert.equal(res.status, 404);
  });

  it('a rotation publishes the next key a day before it signs; an immediate one signs at once and withdraws the others', async () => {
    const org = await createOrg(svc);
    const [before] = await keys();
    const rotated = await svc.api('POST', '/admin/v1/saml/keys/rotate', { token: svc.adminToken, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    const day = Date.parse(rotated.body.signsFrom) - Date.now();
    assert.ok(day > 23.9 * 3600_000 && day <= 24 * 3600_000, `signs in a day: ${rotated.body.signsFrom}`);
    assert.deepEqual(
      (await keys()).map((k) => [k.keyId, k.status]),
      [
        [before!.keyId, 'active'],
        [rotated.body.keyId, 'next'],
      ],
    );
    assert.deepEqual(
      certificatesOf(await (await metadata(org.id)).text()).map(thumbprint),
      [before!.keyId, rotated.body.keyId],
      'both in the metadata, the signer first',
    );

    const urgent = await svc.api('POST', '/admin/v1/saml/keys/rotate', { token: svc.adminToken, body: { immediately: true } });
    assert.equal(urgent.status, 200, urgent.text);
    assert.deepEqual(
      (await keys()).map((k) => [k.keyId, k.status]),
      [[urgent.body.keyId, 'active']],
    );
    assert.deepEqual(certificatesOf(await (await metadata(org.id)).text()).map(thumbprint), [urgent.body.keyId]);

    const events = await searchEvents(svc, { event_types: ['saml.key.rotated'], asc: false, limit: 2 });
    assert.deepEqual(
      events.map((e: { aggregate: { id: string } }) => e.aggregate.id),
      [urgent.body.keyId, rotated.body.keyId],
    );
  });

  it('refuses a rotation body it does not know, changing nothing; only IAM_OWNER lists or rotates', async () => {
    const before = await keys();
    const bad = await svc.api('POST', '/admin/v1/saml/keys/rotate', { token: svc.adminToken, body: { immediately: 'yes' } });
    assert.equal(bad.status, 400, bad.text);
    const org = await createOrg(svc);
    const owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    assert.equal((await svc.api('POST', '/admin/v1/saml/keys/rotate', { token: owner.token, body: {} })).status, 403);
    assert.equal((await svc.api('GET', '/admin/v1/saml/keys', { token: owner.token })).status, 403);
    assert.deepEqual(await keys(), before);
  });

  it('keeps private keys sealed with the master key; no answer carries one', async () => {
    const rows: { sealed: string }[] = await svc.dataSource.query('SELECT private_key_encrypted AS sealed FROM saml_signing_keys');
    assert.ok(rows.length > 0);
    for (const { sealed } of rows) {
      assert.match(sealed, /^v1\./);
      assert.doesNotMatch(sealed, /PRIVATE KEY/);
    }
    const listed = await svc.api('GET', '/admin/v1/saml/keys', { token: svc.adminToken });
    assert.doesNotMatch(listed.text, /PRIVATE|BEGIN/);
  });
});
