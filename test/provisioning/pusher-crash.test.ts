import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg } from '../support/fixtures.js';
import { eventually, processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const TOKEN = 'crash-peer-token-51d2';
const PEOPLE = 10;

/**
 * docs/provisioning.md, "How it is pushed": `kill -9` of the pusher loses nothing and duplicates nothing. The first process pushes to a target that
 * starts to answer slowly; it is killed with a POST in flight, which the target still carries out. The second process
 * takes the target over when the lease runs out, finds that user by its externalId (the intent was recorded before
 * the POST), and pushes the rest: every person is at the target exactly once.
 */
describe('provisioning: kill -9 of the pusher', () => {
  let setup: ProcessSetup;
  let peer: ScimmyTarget;
  before(async () => {
    peer = await ScimmyTarget.start(TOKEN);
    setup = await processSetup({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PROVISIONING_RETRY_BASE_MS: '50', PROVISIONING_LEASE_MS: '12000' });
  });
  after(async () => {
    await setup?.cleanup();
    await peer?.close();
  });

  it(`${PEOPLE} people, the pusher killed mid-POST: each arrives once after the restart`, async () => {
    const first = await setup.spawn();
    const svc = remoteService(first.url, setup.adminToken());
    const org = await createOrg(svc);
    const api = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });
    const target = await api('POST', `/management/v1/orgs/${org.id}/provisioning/targets`, {
      name: 'peer',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: TOKEN },
    });
    assert.equal(target.status, 201, target.text);
    const people: string[] = [];
    const person = async (on = svc) => {
      const userName = `person-${people.length}`;
      const res = await on.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
        token: on.adminToken,
        body: { userName, profile: { firstName: 'Per', lastName: 'Son' }, email: { email: `${userName}@example.com` } },
      });
      assert.equal(res.status, 201, res.text);
      people.push(res.body.userId);
    };
    for (let i = 0; i < 4; i++) await person();
    await eventually('the first four pushed', async () => (peer.users.length === 4 ? true : undefined), 30_000);
    // From now on the target carries each request out at once but answers only after 5 s: the next POST is in
    // flight when the process dies, and its user exists at the target.
    peer.fault = { holdAnswerMs: 5000 };
    for (let i = 0; i < PEOPLE - 6; i++) await person();
    await eventually('a POST in flight', async () => (peer.requests.some((r) => r.method === 'POST' && r.delayed) ? true : undefined), 30_000);
    await first.stop('SIGKILL');
    const pushedBeforeTheCrash = peer.requests.filter((r) => r.method === 'POST').length;
    const crashedAt = peer.requests.length;
    // The target carried the POST out; the dead process never heard of it.
    assert.equal(peer.users.length, 5);
    peer.fault = undefined;

    const second = await setup.spawn();
    const svc2 = remoteService(second.url, setup.adminToken());
    for (let i = 0; i < 2; i++) await person(svc2);
    await eventually('every person at the target', async () => (people.every((id) => peer.users.some((u) => u.externalId === id)) ? true : undefined), 60_000);
    for (const id of people) assert.equal(peer.users.filter((u) => u.externalId === id).length, 1, `${id} once`);
    assert.ok(pushedBeforeTheCrash >= 5);
    const objects = await eventually(
      'all provisioned',
      async () => {
        const body = (
          await svc2.api('GET', `/management/v1/orgs/${org.id}/provisioning/targets/${target.body.id}/objects?status=provisioned`, { token: svc2.adminToken })
        ).body;
        return body.total === PEOPLE ? body : undefined;
      },
      30_000,
    );
    assert.equal(objects.total, PEOPLE);
    // The one in flight was looked up by its externalId, not posted again: one POST for each of the other five.
    assert.equal(peer.users.length, PEOPLE);
    const after = peer.requests.slice(crashedAt);
    assert.ok(
      after.some((r) => r.method === 'GET' && r.path.includes('filter=externalId')),
      'the retry looked the user up',
    );
    assert.equal(after.filter((r) => r.method === 'POST').length, PEOPLE - 5);
  });
});
