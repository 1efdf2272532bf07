// @own-process: trusts a test certificate authority in this process's https agent, as NODE_EXTRA_CA_CERTS would.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, globalAgent } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { startDnsResponder } from './support/dns-responder.js';
import type { DnsResponder } from './support/dns-responder.js';
import { verifiedDomain } from './support/domains.js';

/** A site of the organization, served over HTTPS by this test with a certificate for its name. */
const WEB_DOMAIN = `${unique('web')}.example`;

/**
 * An organization's domains (docs/federation.md, "Organization domains") against a DNS server and an HTTPS server
 * this test starts on free ports: the service asks the DNS server named by DOMAIN_VERIFICATION_DNS_SERVERS for the
 * TXT record and for the web site's address, and fetches the file on DOMAIN_VERIFICATION_HTTPS_PORT.
 */
describe('organization domains', () => {
  const env: Record<string, string> = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', IDP_TIMEOUT_MS: '2000' };
  let dns: DnsResponder;
  let web: Server;
  const files = new Map<string, string>();
  let certDir: string;

  before(async () => {
    dns = await startDnsResponder();
    certDir = mkdtempSync(join(tmpdir(), 'portcullis-domain-'));
    const [key, cert] = [join(certDir, 'key.pem'), join(certDir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        `/CN=${WEB_DOMAIN}`,
        '-addext',
        `subjectAltName=DNS:${WEB_DOMAIN}`,
      ],
      { stdio: 'ignore' },
    );
    globalAgent.options.ca = [...rootCertificates, readFileSync(cert, 'utf8')];
    web = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const body = files.get(req.url ?? '');
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(body ?? 'not here');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    dns.zone.a.set(WEB_DOMAIN, '127.0.0.1');
    env.DOMAIN_VERIFICATION_DNS_SERVERS = dns.server;
    env.DOMAIN_VERIFICATION_HTTPS_PORT = String((web.address() as AddressInfo).port);
  });

  const svc = useService(env);
  let org: { id: string; primaryDomain: string };
  let owner: { userId: string; token: string };

  before(async () => {
    org = await createOrg(svc);
    owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
  });

  after(async () => {
    await dns?.close();
    web?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  const domains = (orgId = org.id) => `/management/v1/orgs/${orgId}/domains`;
  const as = (token: string, method: string, path: string, body?: unknown) => svc.api(method, path, { token, body });
  const stored = async (domain: string) => svc.dataSource.query('SELECT org_id, verified_at FROM org_domains WHERE domain = ?', [domain]);

  it('POST adds an unverified domain with its challenge; GET lists the primary domain first', async () => {
    const domain = `${unique('Acme')}.Example`;
    const added = await as(owner.token, 'POST', domains(), { domain });
    assert.equal(added.status, 201, added.text);
    const lower = domain.toLowerCase();
    const { verification } = added.body;
    assert.deepEqual({ ...added.body, verification: undefined }, { domain: lower, verified: false, primary: false, verification: undefined });
    assert.equal(verification.dnsTxtName, `_portcullis-challenge.${lower}`);
    assert.match(verification.dnsTxtValue, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(verification.httpUrl, `https://${lower}:${env.DOMAIN_VERIFICATION_HTTPS_PORT}/.well-known/portcullis-challenge/${verification.dnsTxtValue}`);
    assert.equal(verification.httpBody, verification.dnsTxtValue);
    const list = await as(owner.token, 'GET', domains());
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.domains[0], { domain: org.primaryDomain, verified: true, primary: true });
    assert.deepEqual(
      list.body.domains.find((d: { domain: string }) => d.domain === lower),
      { domain: lower, verified: false, primary: false, verification },
    );
    assert.equal(list.body.total, list.body.domains.length);
    const [event] = await searchEvents(svc, { event_types: ['org.domain.added'], aggregate_id: org.id });
    assert.equal(event.payload.domain, lower);
  });

  it('an internationalised name is stored in its ASCII form', async () => {
    const label = unique('bücher');
    const added = await as(owner.token, 'POST', domains(), { domain: `${label}.example` });
    assert.equal(added.status, 201, added.text);
    assert.match(added.body.domain, /^xn--[a-z0-9-]+\.example$/);
  });

  it('bad names are refused with 400 naming domain, a taken one with 409; nothing is stored', async () => {
    const taken = `${unique('taken')}.example`;
    assert.equal((await as(owner.token, 'POST', domains(), { domain: taken })).status, 201);
    const other = await createOrg(svc);
    const before = await countRows(svc, 'org_domains');
    const events = (await searchEvents(svc, { event_types: ['org.domain.added'] })).length;
    const bad = [
      'not a domain',
      'example.com.',
      'localhost',
      `${'x'.repeat(64)}.example`,
      '-a.example',
      '1.2.3.4',
      `${'a.'.repeat(126)}example`,
      `x.${svc.config.instanceDomain}`,
      other.primaryDomain,
      '',
    ];
    for (const domain of bad) {
      const res = await as(owner.token, 'POST', domains(), { domain });
      assert.equal(res.status, 400, `${JSON.stringify(domain)} → ${res.status} ${res.text}`);
      assert.equal(res.body.details?.[0]?.field, 'domain', res.text);
    }
    for (const [orgId, domain] of [
      [org.id, taken],
      [org.id, taken.toUpperCase()],
      [other.id, taken],
    ]) {
      const res = await as(svc.adminToken, 'POST', domains(orgId), { domain });
      assert.equal(res.status, 409, `${domain} → ${res.status} ${res.text}`);
    }
    assert.equal((await as(owner.token, 'POST', domains(), { domain: taken, extra: 1 })).status, 400);
    assert.equal(await countRows(svc, 'org_domains'), before);
    assert.equal((await searchEvents(svc, { event_types: ['org.domain.added'] })).length, events);
  });

  it('verify finds the DNS TXT record; before it is published, 409 and nothing changes', async () => {
    const added = await as(owner.token, 'POST', domains(), { domain: `${unique('dns')}.example` });
    const { domain, verification } = added.body;
    const early = await as(owner.token, 'POST', `${domains()}/${domain}/verify`, {});
    assert.equal(early.status, 409, early.text);
    assert.match(early.body.message, /_portcullis-challenge/);
    assert.equal((await stored(domain))[0].verified_at, null);
    dns.zone.txt.set(verification.dnsTxtName, ['v=unrelated', verification.dnsTxtValue]);
    const verified = await as(owner.token, 'POST', `${domains()}/${domain}/verify`, {});
    assert.equal(verified.status, 200, verified.text);
    assert.deepEqual(verified.body, { domain, verified: true });
    const [event] = await searchEvents(svc, { event_types: ['org.domain.verified'], aggregate_id: org.id });
    assert.deepEqual(event.payload, { domain, method: 'dns' });
    const listed = (await as(owner.token, 'GET', domains())).body.domains.find((d: { domain: string }) => d.domain === domain);
    assert.deepEqual(listed, { domain, verified: true, primary: false });
  });

  it('verify finds the HTTPS file at the address DNS gives; a wrong body is not the challenge', async () => {
    const added = await as(owner.token, 'POST', domains(), { domain: WEB_DOMAIN });
    assert.equal(added.status, 201, added.text);
    const { verification } = added.body;
    const path = new URL(verification.httpUrl).pathname;
    files.set(path, 'something else');
    assert.equal((await as(owner.token, 'POST', `${domains()}/${WEB_DOMAIN}/verify`, {})).status, 409);
    assert.equal((await stored(WEB_DOMAIN))[0].verified_at, null);
    files.set(path, `${verification.httpBody}\n`);
    const verified = await as(owner.token, 'POST', `${domains()}/${WEB_DOMAIN}/verify`, {});
    assert.equal(verified.status, 200, verified.text);
    const events = await searchEvents(svc, { event_types: ['org.domain.verified'], aggregate_id: org.id });
    assert.ok(
      events.some((e) => e.payload.domain === WEB_DOMAIN && e.payload.method === 'http'),
      JSON.stringify(events),
    );
  });

  it('an IAM_OWNER’s verify vouches without a challenge; an ORG_OWNER’s does not', async () => {
    const { domain } = (await as(owner.token, 'POST', domains(), { domain: `${unique('intranet')}.example` })).body;
    assert.equal((await as(owner.token, 'POST', `${domains()}/${domain}/verify`, {})).status, 409);
    const vouched = await as(svc.adminToken, 'POST', `${domains()}/${domain}/verify`, {});
    assert.equal(vouched.status, 200, vouched.text);
    const events = await searchEvents(svc, { event_types: ['org.domain.verified'], aggregate_id: org.id });
    assert.ok(events.some((e) => e.payload.domain === domain && e.payload.method === 'instance_owner'));
  });

  it('an IdP claims only verified domains of its own organization (400 naming domains otherwise)', async () => {
    const idp = (domains: string[]) => ({ type: 'oidc', name: unique('idp'), issuer: 'http://127.0.0.1:9/', clientId: 'c', clientSecret: 's', domains });
    const pending = (await as(owner.token, 'POST', domains(), { domain: `${unique('pending')}.example` })).body.domain;
    const other = await createOrg(svc);
    const foreign = await verifiedDomain(svc, other.id, `${unique('foreign')}.example`);
    const before = await countRows(svc, 'identity_providers');
    for (const claimed of [pending, foreign, other.primaryDomain]) {
      const res = await as(owner.token, 'POST', `/management/v1/orgs/${org.id}/idps`, idp([claimed]));
      assert.equal(res.status, 400, `${claimed}: ${res.text}`);
      assert.equal(res.body.details?.[0]?.field, 'domains');
    }
    assert.equal(await countRows(svc, 'identity_providers'), before);
    const own = await verifiedDomain(svc, org.id, `${unique('own')}.example`);
    const created = await as(owner.token, 'POST', `/management/v1/orgs/${org.id}/idps`, idp([own, org.primaryDomain]));
    assert.equal(created.status, 201, created.text);
  });

  it('DELETE removes an added domain; never the primary one nor one an IdP claims (409); another organization’s is 404', async () => {
    const domain = await verifiedDomain(svc, org.id, `${unique('gone')}.example`);
    const idp = await as(owner.token, 'POST', `/management/v1/orgs/${org.id}/idps`, {
      type: 'oidc',
      name: unique('idp'),
      issuer: 'http://127.0.0.1:9/',
      clientId: 'c',
      clientSecret: 's',
      domains: [domain],
    });
    assert.equal(idp.status, 201, idp.text);
    const claimed = await as(owner.token, 'DELETE', `${domains()}/${domain}`);
    assert.equal(claimed.status, 409, claimed.text);
    assert.equal((await as(owner.token, 'DELETE', `${domains()}/${org.primaryDomain}`)).status, 409);
    const other = await createOrg(svc);
    assert.equal((await as(svc.adminToken, 'DELETE', `${domains(other.id)}/${domain}`)).status, 404);
    assert.equal((await stored(domain)).length, 1);
    assert.equal((await as(owner.token, 'PATCH', `/management/v1/orgs/${org.id}/idps/${idp.body.id}`, { domains: [] })).status, 200);
    assert.equal((await as(owner.token, 'DELETE', `${domains()}/${domain}`)).status, 204);
    assert.deepEqual(await stored(domain), []);
    const [event] = await searchEvents(svc, { event_types: ['org.domain.removed'], aggregate_id: org.id });
    assert.equal(event.payload.domain, domain);
    assert.equal((await as(owner.token, 'DELETE', `${domains()}/${domain}`)).status, 404);
  });

  it('removing the organization removes its domains', async () => {
    const doomed = await createOrg(svc);
    const domain = await verifiedDomain(svc, doomed.id, `${unique('doomed')}.example`);
    const removed = await as(svc.adminToken, 'DELETE', `/admin/v1/orgs/${doomed.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await stored(domain), []);
  });
});
