import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIRECT, issueToken, leftOf, organization, publicClient, readOwn, registered, removals, setMode } from './support/dynamic-registration.js';
import type { Registered } from './support/dynamic-registration.js';
import { PASSWORD } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { countRows, searchEvents, useService } from '../support/fixtures.js';

/**
 * Removing an organization removes its registered clients the way its owner's removal of one does: with every
 * grant, code and token issued to them, their registration access tokens, the consents given to them, and an
 * `agent.client.removed` event each, more than one batch of them.
 */
describe('dynamic client registration: removing the organization they are registered to', () => {
  const svc = useService({ DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });

  it('removes every registered client with what was issued to it and its event', async () => {
    const org = await organization(svc);
    const orgId = org.project.orgId;
    await setMode(svc, orgId, 'open');
    const token = await issueToken(svc, orgId, { uses: 100 });
    const clients: Registered[] = [];
    for (let i = 0; i < 100; i += 10) {
      clients.push(...(await Promise.all(Array.from({ length: 10 }, () => registered(svc, publicClient(), token)))));
    }
    // An open registration, bound to the organization by its first code.
    const open = await registered(svc, publicClient({ client_name: 'open' }));
    const used = [open, clients[0]];
    for (const client of used) {
      const { tokens, error } = await signIn(svc, {
        clientId: client.client_id,
        redirectUri: REDIRECT,
        loginName: org.loginName,
        password: PASSWORD,
        scope: 'openid files:read',
        extra: { resource: org.resourceUri },
        consent: 'allow',
      });
      assert.ok(tokens?.access_token, error);
    }
    const ids = [...clients, open].map((c) => c.client_id);
    assert.equal(await countRows(svc, `dynamic_clients WHERE org_id = '${orgId}'`), 101);
    const before = await leftOf(svc, ids);
    assert.ok(before.issued > ids.length, `tokens issued: ${JSON.stringify(before)}`);
    assert.equal(before.consents, 2);

    const res = await svc.api('DELETE', `/admin/v1/orgs/${orgId}`, { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);

    assert.deepEqual(await leftOf(svc, ids), { registrations: 0, issued: 0, consents: 0 });
    assert.equal(await countRows(svc, `agent_registration_tokens WHERE org_id = '${orgId}'`), 0);
    assert.equal((await readOwn(svc, open)).status, 401);
    const events = await removals(svc, ids);
    assert.equal(events.length, 101, 'one event each');
    for (const event of events) {
      assert.equal(event.payload.reason, 'removed');
      assert.equal(event.aggregate.resourceOwner, orgId);
      assert.ok(event.editor?.userId, JSON.stringify(event));
    }
    const ofOrg = await searchEvents(svc, { resource_owner: orgId, asc: true, limit: 1000 });
    assert.equal(ofOrg.at(-1)!.type.type, 'org.removed', 'the organization’s removal is its last event');
  });
});
