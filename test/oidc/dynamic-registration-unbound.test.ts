import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIRECT, issueToken, leftOf, organization, publicClient, readOwn, register, registered, removals, setMode } from './support/dynamic-registration.js';
import type { Registered } from './support/dynamic-registration.js';
import { createCaller, useService } from '../support/fixtures.js';

const UNBOUND = '/admin/v1/registered-clients/unbound';

/**
 * docs/agents.md, "Dynamic registration": an IAM_OWNER sees and removes the openly registered clients no
 * organization holds yet, which count towards DYNAMIC_REGISTRATION_MAX_UNBOUND.
 */
describe('dynamic client registration: the instance administrator and the unbound registrations', () => {
  const svc = useService({ DYNAMIC_REGISTRATION_MAX_UNBOUND: '3', DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });

  it('lists the unbound registrations newest first, paged, and removes one or all of them with what was issued to them', async () => {
    const org = await organization(svc);
    await setMode(svc, org.project.orgId, 'open');
    const bound = await registered(svc, publicClient({ client_name: 'bound' }), await issueToken(svc, org.project.orgId));
    const open: Registered[] = [];
    for (const name of ['first of three', 'second', 'third of three']) open.push(await registered(svc, publicClient({ client_name: name })));
    assert.equal((await register(svc, publicClient())).status, 400, 'the unbound bound is reached');

    const list = await svc.api('GET', `${UNBOUND}?limit=2`, { token: svc.adminToken });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.total, 3, 'the bound client is not among them');
    assert.deepEqual(
      list.body.clients.map((c: { clientName: string }) => c.clientName),
      ['third of three', 'second'],
    );
    assert.deepEqual(list.body.clients[0].redirectUris, [REDIRECT]);
    assert.equal(list.body.clients[0].clientId, open[2].client_id);
    assert.ok(Date.parse(list.body.clients[0].createdAt) > 0 && Date.parse(list.body.clients[0].lastUsedAt) > 0);
    const next = await svc.api('GET', `${UNBOUND}?limit=2&offset=2`, { token: svc.adminToken });
    assert.deepEqual(
      next.body.clients.map((c: { clientName: string }) => c.clientName),
      ['first of three'],
    );
    assert.equal((await svc.api('GET', `${UNBOUND}?limit=1001`, { token: svc.adminToken })).status, 400);
    // ?query= by the client's name (any case) or its id; the total counts the matches, and the page applies to them.
    // The queries hold a space or six letters, which no random id may hold by chance.
    const named = await svc.api('GET', `${UNBOUND}?query=${encodeURIComponent('SECOND')}`, { token: svc.adminToken });
    assert.equal(named.status, 200, named.text);
    assert.deepEqual([named.body.total, named.body.clients.map((c: { clientName: string }) => c.clientName)], [1, ['second']]);
    const byId = await svc.api('GET', `${UNBOUND}?query=${open[0].client_id.slice(-12)}`, { token: svc.adminToken });
    assert.deepEqual(
      byId.body.clients.map((c: { clientId: string }) => c.clientId),
      [open[0].client_id],
    );
    const paged = await svc.api('GET', `${UNBOUND}?query=${encodeURIComponent('OF THREE')}&limit=1&offset=1`, { token: svc.adminToken });
    assert.deepEqual(
      [paged.body.total, paged.body.clients.map((c: { clientName: string }) => c.clientName)],
      [2, ['first of three']],
      'two names hold "of three"',
    );
    assert.equal((await svc.api('GET', `${UNBOUND}?query=bound`, { token: svc.adminToken })).body.total, 0, 'the bound client is not among them');

    assert.equal((await svc.api('DELETE', `${UNBOUND}/${bound.client_id}`, { token: svc.adminToken })).status, 404, 'a bound one is its organization’s');
    assert.equal((await svc.api('DELETE', `${UNBOUND}/agent-unknown`, { token: svc.adminToken })).status, 404);
    assert.equal((await svc.api('DELETE', `${UNBOUND}/${open[0].client_id}`, { token: svc.adminToken })).status, 204);
    assert.equal((await svc.api('DELETE', `${UNBOUND}/${open[0].client_id}`, { token: svc.adminToken })).status, 404);
    assert.deepEqual(await leftOf(svc, [open[0].client_id]), { registrations: 0, issued: 0, consents: 0 });
    assert.equal((await readOwn(svc, open[0])).status, 401, 'its registration access token went with it');
    const [event] = await removals(svc, [open[0].client_id]);
    assert.equal(event.payload.reason, 'removed');
    assert.equal(event.aggregate.resourceOwner, 'instance');
    assert.ok(event.editor?.userId, JSON.stringify(event));
    const again = await registered(svc, publicClient({ client_name: 'again' }));

    const all = await svc.api('DELETE', UNBOUND, { token: svc.adminToken });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.removed, 3);
    const gone = [open[1].client_id, open[2].client_id, again.client_id];
    assert.deepEqual(await leftOf(svc, gone), { registrations: 0, issued: 0, consents: 0 });
    assert.equal((await removals(svc, gone)).length, 3);
    assert.equal((await svc.api('GET', UNBOUND, { token: svc.adminToken })).body.total, 0);
    assert.equal((await readOwn(svc, bound)).status, 200, 'the bound registration stays');
    assert.equal((await svc.api('DELETE', UNBOUND, { token: svc.adminToken })).body.removed, 0);
    await registered(svc, publicClient());
  });

  it('answers an organization owner 403 and changes nothing', async () => {
    const org = await organization(svc);
    await setMode(svc, org.project.orgId, 'open');
    const open = await registered(svc, publicClient());
    const owner = await createCaller(svc, org.project.orgId, { org: ['ORG_OWNER'] });
    assert.equal((await svc.api('GET', UNBOUND, { token: owner.token })).status, 403);
    assert.equal((await svc.api('DELETE', `${UNBOUND}/${open.client_id}`, { token: owner.token })).status, 403);
    assert.equal((await svc.api('DELETE', UNBOUND, { token: owner.token })).status, 403);
    assert.equal((await readOwn(svc, open)).status, 200, 'still registered');
  });
});
