import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { LoginClient } from '../attack/support/login-client.js';
import { eventually } from '../faults/faults.helpers.js';
import { createHuman } from '../oidc/support/oidc-fixtures.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { authnRequestXml, postedMessage, redirectQuery } from './support/saml-messages.js';
import { untilAnswered } from './support/saml-sign-in.js';

/** An SP's SingleLogoutService on loopback: the LogoutRequests (HTTP-Redirect, from the server) it was sent, inflated. */
async function startSloReceiver(): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const message = new URL(req.url ?? '/', 'http://sp').searchParams.get('SAMLRequest');
    if (message) requests.push(inflateRawSync(Buffer.from(message, 'base64')).toString('utf8'));
    res.writeHead(200).end('logged out');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An organization with a SAML application whose `sloUrl` is the receiver's, and a user signed in to it (IdP-initiated). */
async function signedInToSp(svc: TestService, sloOrigin: string) {
  const org = await createOrg(svc);
  const projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('slo') } })).body.id;
  const entityId = `https://${unique('sp')}.example.com/saml`;
  const created = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
    token: svc.adminToken,
    body: { name: 'SP', entityId, acsUrls: [`${sloOrigin}/acs`], sloUrl: `${sloOrigin}/slo`, allowIdpInitiated: true },
  });
  assert.equal(created.status, 201, created.text);
  const user = await createHuman(svc, org.id);
  const browser = new LoginClient(svc.url);
  const page = await untilAnswered(
    browser,
    await browser.get(`/saml/v2/${org.id}/init?sp=${encodeURIComponent(entityId)}`),
    `${user.userName}@${org.primaryDomain}`,
  );
  postedMessage(page.text);
  const [session] = (await svc.dataSource.query('SELECT id FROM saml_sessions WHERE user_id = ?', [user.userId])) as { id: string }[];
  assert.ok(session, 'the assertion is recorded');
  return { orgId: org.id, entityId, user, sessionIndex: session.id };
}

/**
 * When the IdP's LogoutRequests go out (docs/saml.md, "Single logout"): the process that ends a session sends them
 * once its transaction commits, without waiting for a poll; a logout marked by another process waits for this one's
 * poll (`SAML_LOGOUT_POLL_MS`). Here the poll is a minute, longer than the test: what arrives came by the commit.
 */
describe('SAML single logout: sent on commit, not by a fast poll', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', SAML_LOGOUT_POLL_MS: '60000' });
  let sp: Awaited<ReturnType<typeof startSloReceiver>>;
  before(async () => {
    sp = await startSloReceiver();
  });
  after(() => sp?.close());

  it('a user deactivated here: its SP gets the LogoutRequest at once, long before the poll', async () => {
    const { orgId, user, sessionIndex } = await signedInToSp(svc, sp.origin);
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${user.userId}/deactivate`, { token: svc.adminToken, body: {} });
    assert.ok(res.status < 300, res.text);
    const request = await eventually('the LogoutRequest', async () => sp.requests.find((xml) => xml.includes(sessionIndex)), 5_000, 20);
    assert.match(request, /<samlp:LogoutRequest/);
    await eventually('the assertion forgotten once delivered', async () =>
      (await svc.dataSource.query('SELECT id FROM saml_sessions WHERE id = ?', [sessionIndex])).length === 0 ? true : undefined,
    );
  });

  it("a logout another process marked is not looked for every 500 ms: it waits for this process's poll or its next commit", async () => {
    const { sessionIndex } = await signedInToSp(svc, sp.origin);
    // Another process (sharing the database) ended the session: its mark, without a commit of this process.
    await svc.dataSource.query('UPDATE saml_sessions SET logout_due_at = ? WHERE id = ?', [Date.now(), sessionIndex]);
    // Four of the old 500 ms polls pass and nothing looks for it: `eventually` gives up waiting for it to arrive.
    const arrived = await eventually(
      'a LogoutRequest',
      async () => (sp.requests.some((xml) => xml.includes(sessionIndex)) ? true : undefined),
      2_000,
      100,
    ).catch(() => false);
    assert.equal(arrived, false, 'not sent before a poll or a commit of this process');
    // This process ends a session of its own: the pass after that commit takes every due logout, the other one too.
    const second = await signedInToSp(svc, sp.origin);
    await svc.api('POST', `/management/v1/orgs/${second.orgId}/users/${second.user.userId}/deactivate`, { token: svc.adminToken, body: {} });
    await eventually('both LogoutRequests', async () =>
      sp.requests.some((xml) => xml.includes(sessionIndex)) && sp.requests.some((xml) => xml.includes(second.sessionIndex)) ? true : undefined,
    );
  });
});

describe('SAML single logout: other processes’ marks at the poll; expired requests purged', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', SAML_LOGOUT_POLL_MS: '200', OIDC_PURGE_INTERVAL_MS: '1000' });
  let sp: Awaited<ReturnType<typeof startSloReceiver>>;
  before(async () => {
    sp = await startSloReceiver();
  });
  after(() => sp?.close());

  it("a logout another process marked is sent at this process's poll", async () => {
    const { sessionIndex } = await signedInToSp(svc, sp.origin);
    await svc.dataSource.query('UPDATE saml_sessions SET logout_due_at = ? WHERE id = ?', [Date.now(), sessionIndex]);
    await eventually('the LogoutRequest', async () => sp.requests.find((xml) => xml.includes(sessionIndex)));
  });

  it('the purge deletes expired pending requests and assertions', async () => {
    const { orgId, entityId, sessionIndex } = await signedInToSp(svc, sp.origin);
    const ssoUrl = `${svc.config.publicUrl}/saml/v2/${orgId}/sso`;
    const first = await new LoginClient(svc.url).get(
      `/saml/v2/${orgId}/sso?${redirectQuery(authnRequestXml({ issuer: entityId, destination: ssoUrl, acsUrl: `${sp.origin}/acs` }).xml)}`,
    );
    assert.equal(first.status, 303, first.text);
    const pending = async () =>
      Number(
        (
          await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_requests WHERE app_id IN (SELECT app_id FROM saml_applications WHERE org_id = ?)', [orgId])
        )[0].n,
      );
    assert.equal(await pending(), 2, 'the IdP-initiated sign-in answered, this one waiting');
    // An hour and a month pass: the rows' expiry moves into the past, as the clock would.
    const past = Date.now() - 1000;
    await svc.dataSource.query('UPDATE saml_requests SET expires_at = ? WHERE app_id IN (SELECT app_id FROM saml_applications WHERE org_id = ?)', [
      past,
      orgId,
    ]);
    await svc.dataSource.query('UPDATE saml_sessions SET expires_at = ? WHERE id = ?', [past, sessionIndex]);
    await eventually('the expired rows purged', async () =>
      (await pending()) === 0 && (await svc.dataSource.query('SELECT id FROM saml_sessions WHERE id = ?', [sessionIndex])).length === 0 ? true : undefined,
    );
  });
});
