import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIRECT, issueToken, organization, publicClient, register, setMode } from './support/dynamic-registration.js';
import type { Organization } from './support/dynamic-registration.js';
import { PASSWORD } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { countRows, searchEvents, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';

const DAY_MS = 86_400_000;

const registeredTo = (svc: TestService, orgId: string) => countRows(svc, `dynamic_clients WHERE org_id = '${orgId}'`);
const unbound = (svc: TestService) => countRows(svc, 'dynamic_clients WHERE org_id IS NULL');
const stored = async (svc: TestService) => ({
  clients: await countRows(svc, 'dynamic_clients'),
  tokens: await countRows(svc, 'oidc_payloads'),
  events: (await searchEvents(svc, { event_types: ['agent.client.registered'] })).length,
});

interface Registered {
  client_id: string;
  registration_client_uri: string;
  registration_access_token: string;
}

/** RFC 7592 §2.3: the client deletes its own registration. */
async function deleteRegistration(svc: TestService, created: Registered): Promise<void> {
  const res = await svc.api('DELETE', new URL(created.registration_client_uri).pathname, { token: created.registration_access_token });
  assert.equal(res.status, 204, res.text);
}

function assertRefused(res: { status: number; body: { error?: string; error_description?: string }; text: string }, bound: RegExp): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error, 'access_denied', res.text);
  assert.match(res.body.error_description ?? '', bound);
  assert.match(res.body.error_description ?? '', /lapse/);
}

const ORG_BOUND = /the organization holds as many registered clients.*administrator of the organization can delete/;
const UNBOUND_BOUND = /openly registered clients not yet bound.*can delete its own/;

/** docs/agents.md, "Dynamic registration": how many registered clients an organization, and the instance unbound, hold. */
describe('dynamic client registration: bounds of the clients held', () => {
  const svc = useService({
    DYNAMIC_REGISTRATION_MAX_PER_ORG: '3',
    DYNAMIC_REGISTRATION_MAX_UNBOUND: '2',
    DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000',
  });

  it('an organization holds at most DYNAMIC_REGISTRATION_MAX_PER_ORG: the next is refused, nothing stored; a deleted or lapsed one makes room', async () => {
    const a = await organization(svc);
    const b = await organization(svc);
    await setMode(svc, a.project.orgId, 'initialAccessToken');
    await setMode(svc, b.project.orgId, 'initialAccessToken');
    const token = await issueToken(svc, a.project.orgId, { uses: 10 });
    const created: Registered[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await register(svc, publicClient(), token);
      assert.equal(res.status, 201, res.text);
      created.push(res.body);
    }
    const before = await stored(svc);
    assertRefused(await register(svc, publicClient(), token), ORG_BOUND);
    assert.deepEqual(await stored(svc), before, 'no client, registration access token or event');
    assert.equal((await register(svc, publicClient(), await issueToken(svc, b.project.orgId))).status, 201, 'another organization has its own bound');

    await deleteRegistration(svc, created[0]);
    const again = await register(svc, publicClient(), token);
    assert.equal(again.status, 201, again.text);
    assertRefused(await register(svc, publicClient(), token), ORG_BOUND);

    await svc.dataSource.query('UPDATE dynamic_clients SET last_used_at = ? WHERE client_id = ?', [Date.now() - 31 * DAY_MS, created[1].client_id]);
    assert.equal((await register(svc, publicClient(), token)).status, 201, 'a lapsed registration counts no more');
  });

  it('an organization owner lists the registered clients and removes one with what was issued to it, which makes room', async () => {
    const d = await organization(svc);
    await setMode(svc, d.project.orgId, 'initialAccessToken');
    const token = await issueToken(svc, d.project.orgId, { uses: 10 });
    const created: Registered[] = [];
    for (const name of ['first', 'second', 'third']) {
      const res = await register(svc, publicClient({ client_name: name }), token);
      assert.equal(res.status, 201, res.text);
      created.push(res.body);
    }
    assertRefused(await register(svc, publicClient(), token), ORG_BOUND);
    const path = `/management/v1/orgs/${d.project.orgId}/registered-clients`;
    const list = await svc.api('GET', `${path}?limit=2`, { token: svc.adminToken });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.total, 3);
    assert.deepEqual(
      list.body.clients.map((c: { clientName: string }) => c.clientName),
      ['third', 'second'],
      'newest first, paged',
    );
    assert.deepEqual(list.body.clients[0].redirectUris, [REDIRECT]);

    const [removed] = created;
    assert.equal((await svc.api('DELETE', `${path}/agent-unknown`, { token: svc.adminToken })).status, 404);
    assert.equal((await svc.api('DELETE', `${path}/${removed.client_id}`, { token: svc.adminToken })).status, 204);
    assert.equal((await svc.api('DELETE', `${path}/${removed.client_id}`, { token: svc.adminToken })).status, 404);
    assert.equal(await countRows(svc, `oidc_payloads WHERE client_id = '${removed.client_id}'`), 0, 'its registration access token went with it');
    const managed = await svc.api('GET', new URL(removed.registration_client_uri).pathname, { token: removed.registration_access_token });
    assert.equal(managed.status, 401, managed.text);
    const [event] = await searchEvents(svc, { event_types: ['agent.client.removed'], aggregate_id: removed.client_id });
    assert.equal(event.payload.reason, 'removed');
    assert.equal(event.aggregate.resourceOwner, d.project.orgId);
    assert.ok(event.editor?.userId, JSON.stringify(event));
    assert.equal((await register(svc, publicClient(), token)).status, 201, 'room again');
  });

  it('the instance holds at most DYNAMIC_REGISTRATION_MAX_UNBOUND open registrations not yet bound; binding one makes room, unless its organization is full', async () => {
    const c: Organization = await organization(svc);
    await setMode(svc, c.project.orgId, 'open');
    const open: Registered[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await register(svc, publicClient());
      assert.equal(res.status, 201, res.text);
      open.push(res.body);
    }
    const before = await stored(svc);
    assertRefused(await register(svc, publicClient()), UNBOUND_BOUND);
    assert.deepEqual(await stored(svc), before, 'no client, registration access token or event');
    assert.equal(await unbound(svc), 2);
    assert.equal((await register(svc, publicClient(), await issueToken(svc, c.project.orgId))).status, 201, 'a registration with a token is bound at once');

    // The organization full (3 with the one above), an open registration's first code for its resource is refused.
    const token = await issueToken(svc, c.project.orgId, { uses: 2 });
    const full = [await register(svc, publicClient(), token), await register(svc, publicClient(), token)].map((res) => {
      assert.equal(res.status, 201, res.text);
      return res.body;
    });
    assert.equal(await registeredTo(svc, c.project.orgId), 3);
    const flow = () =>
      signIn(svc, {
        clientId: open[0].client_id,
        redirectUri: REDIRECT,
        loginName: c.loginName,
        password: PASSWORD,
        scope: 'openid files:read',
        extra: { resource: c.resourceUri },
        consent: 'allow',
      });
    assert.equal((await flow()).error, 'access_denied', 'binding would take the organization past its bound');
    assert.equal(await unbound(svc), 2, 'it stays unbound');

    await deleteRegistration(svc, full[0]);
    const { tokens, error } = await flow();
    assert.ok(tokens, error);
    assert.equal(await registeredTo(svc, c.project.orgId), 3);
    assert.equal(await unbound(svc), 1);
    assert.equal((await register(svc, publicClient())).status, 201, 'the bound one left room among the unbound');
    assertRefused(await register(svc, publicClient()), UNBOUND_BOUND);
  });
});

/** Two registrations at once at one below a bound: the count is taken under a lock, so exactly one passes. */
describe('dynamic client registration: bounds under concurrent registrations', () => {
  const svc = useService({
    DYNAMIC_REGISTRATION_MAX_PER_ORG: '2',
    DYNAMIC_REGISTRATION_MAX_UNBOUND: '2',
    DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000',
  });

  it('two registrations with a token at once, one below the organization’s bound: exactly one succeeds', async () => {
    const a = await organization(svc);
    await setMode(svc, a.project.orgId, 'initialAccessToken');
    const token = await issueToken(svc, a.project.orgId, { uses: 3 });
    assert.equal((await register(svc, publicClient(), token)).status, 201);
    const answers = await Promise.all([register(svc, publicClient(), token), register(svc, publicClient(), token)]);
    assert.deepEqual(answers.map((res) => res.status).sort(), [201, 400], answers.map((res) => res.text).join('\n'));
    assertRefused(answers.find((res) => res.status === 400)!, ORG_BOUND);
    assert.equal(await registeredTo(svc, a.project.orgId), 2);
  });

  it('two open registrations at once, one below the unbound bound: exactly one succeeds', async () => {
    const b = await organization(svc);
    await setMode(svc, b.project.orgId, 'open');
    assert.equal((await register(svc, publicClient())).status, 201);
    const answers = await Promise.all([register(svc, publicClient()), register(svc, publicClient())]);
    assert.deepEqual(answers.map((res) => res.status).sort(), [201, 400], answers.map((res) => res.text).join('\n'));
    assertRefused(answers.find((res) => res.status === 400)!, UNBOUND_BOUND);
    assert.equal(await unbound(svc), 2);
  });
});
