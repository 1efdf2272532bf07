import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../faults/faults.helpers.js';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { findSecretsAtRest } from '../support/secret-scan.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';

const PEOPLE = `ou=people,${SUFFIX}`;

/**
 * docs/directories.md: an organization's directories by the management API, against Debian's slapd started here —
 * the hosts allow-list, TLS with a pinned CA, the test endpoint, and full syncs following adds, changes, renames,
 * moves, ppolicy locks and deletions.
 */
describe('directories: OpenLDAP (slapd) by the management API', () => {
  const svc = useService();
  let slapd: Slapd;
  let orgId: string;
  let owner: { userId: string; token: string };
  let manager: { userId: string; token: string };
  const directories = (org = orgId) => `/management/v1/orgs/${org}/directories`;
  const as = (token: string, method: string, path: string, body?: unknown) => svc.api(method, path, { token, body });
  const directory = (extra: Record<string, unknown> = {}) => ({
    type: 'ldap',
    name: unique('Corporate LDAP'),
    url: slapd.url,
    bindDn: slapd.serviceDn,
    bindPassword: slapd.servicePassword,
    usersDn: PEOPLE,
    groupsDn: `ou=groups,${SUFFIX}`,
    sync: { intervalMinutes: 0 },
    ...extra,
  });
  const setHosts = (allow: string[], token = svc.adminToken) => svc.api('PUT', '/admin/v1/directory-hosts', { token, body: { allow } });

  before(async () => {
    slapd = await startSlapd(
      [
        personLdif('alice', { givenName: 'Alice', sn: 'Archer' }),
        personLdif('bob', { givenName: 'Bob', sn: 'Baker' }),
        personLdif('carol', { givenName: 'Carol', sn: 'Cook' }),
        `dn: ou=elsewhere,${PEOPLE}\nobjectClass: organizationalUnit\nou: elsewhere\n`,
        `dn: cn=staff,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: staff\nmember: uid=alice,${PEOPLE}\n`,
      ].join('\n'),
    );
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    manager = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
  });
  after(() => slapd?.stop());

  it("the hosts allow-list is an IAM_OWNER's: a bad entry is a 400 naming it; an ORG_OWNER is refused", async () => {
    const bad = await setHosts(['127.0.0.1', 'not a host!']);
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /allow\[1\]/);
    assert.equal((await svc.api('GET', '/admin/v1/directory-hosts', { token: svc.adminToken })).body.allow.length, 0);
    assert.equal((await setHosts(['127.0.0.1'], owner.token)).status, 403);

    const set = await setHosts(['ldap.corp.example:636', '10.20.0.0/16', '127.0.0.1']);
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body, { allow: ['ldap.corp.example:636', '10.20.0.0/16', '127.0.0.1'] });
  });

  it('a directory outside the allow-list, plain LDAP to a host that is not loopback, or what is not built yet is a 400 naming the field; nothing is stored', async () => {
    const before = await countRows(svc, 'directories');
    for (const url of ['ldaps://ldap.corp.example:1636', 'ldaps://10.21.0.1:636', 'ldap://10.20.0.5:389', 'https://127.0.0.1/']) {
      const res = await as(owner.token, 'POST', directories(), directory({ url }));
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.text, /"url"|url/, url);
    }
    for (const field of ['writeBack', 'jit']) {
      const res = await as(owner.token, 'POST', directories(), directory({ url: slapd.url, [field]: true }));
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, new RegExp(field));
    }
    assert.equal(await countRows(svc, 'directories'), before);
    assert.equal((await as(manager.token, 'POST', directories(), directory())).status, 403);
  });

  it('an ORG_OWNER adds a directory: reads never show the bind password, which is stored encrypted; its event has none', async () => {
    const created = await as(owner.token, 'POST', directories(), directory());
    assert.equal(created.status, 201, created.text);
    const one = await as(owner.token, 'GET', `${directories()}/${created.body.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.bindPassword, undefined);
    assert.equal(one.body.userFilter, '(objectClass=inetOrgPerson)');
    assert.deepEqual(one.body.attributes, {
      userName: 'uid',
      email: 'mail',
      givenName: 'givenName',
      familyName: 'sn',
      displayName: 'cn',
      phone: 'telephoneNumber',
      externalId: 'entryUUID',
    });
    const listed = await as(owner.token, 'GET', directories());
    assert.equal(listed.body.total, 1);
    assert.ok(!listed.text.includes(slapd.servicePassword));
    assert.deepEqual(await findSecretsAtRest(svc.dataSource, [slapd.servicePassword]), []);
    const [event] = await searchEvents(svc, { aggregate_id: created.body.id, event_types: ['org.directory.added'] });
    assert.ok(event, 'org.directory.added');
    assert.ok(!JSON.stringify(event).includes(slapd.servicePassword));
    // Another organization's owner sees nothing of it.
    const other = await createOrg(svc);
    const outsider = await createCaller(svc, other.id, { org: ['ORG_OWNER'] });
    assert.equal((await as(outsider.token, 'GET', `${directories()}/${created.body.id}`)).status, 404);
    assert.equal((await as(outsider.token, 'GET', `${directories(other.id)}/${created.body.id}`)).status, 404);
    assert.equal((await as(owner.token, 'DELETE', `${directories()}/${created.body.id}`)).status, 204);
  });

  it('the test endpoint binds and maps the first users; LDAPS with the pinned CA is TLS, a wrong CA is refused', async () => {
    const plain = (await as(owner.token, 'POST', directories(), directory())).body.id;
    const tested = await as(owner.token, 'POST', `${directories()}/${plain}/test`, {});
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.connected, true);
    assert.equal(tested.body.tls, false);
    assert.equal(tested.body.serverType, 'openldap');
    assert.deepEqual(tested.body.problems, []);
    assert.deepEqual(tested.body.users.map((u: { userName: string }) => u.userName).sort(), ['alice', 'bob', 'carol']);
    assert.deepEqual(tested.body.groups, [{ dn: `cn=staff,ou=groups,${SUFFIX}`, name: 'staff' }]);

    const pinned = (await as(owner.token, 'POST', directories(), directory({ url: slapd.ldapsUrl, caCertificate: slapd.caPem }))).body.id;
    const overTls = (await as(owner.token, 'POST', `${directories()}/${pinned}/test`, {})).body;
    assert.equal(overTls.connected, true, JSON.stringify(overTls));
    assert.equal(overTls.tls, true);
    assert.equal(overTls.users.length, 3);

    // Without the pinned CA the system's store is used, which does not know the throw-away CA.
    const wrong = (await as(owner.token, 'POST', directories(), directory({ url: slapd.ldapsUrl }))).body.id;
    const refused = (await as(owner.token, 'POST', `${directories()}/${wrong}/test`, {})).body;
    assert.equal(refused.connected, false);
    assert.match(refused.problems[0], /TLS|certificate/i);
    for (const id of [plain, pinned, wrong]) await as(owner.token, 'DELETE', `${directories()}/${id}`);
  });

  it('a wrong bind password is a problem the test names, not a 500', async () => {
    const id = (await as(owner.token, 'POST', directories(), directory({ bindPassword: 'not-the-password' }))).body.id;
    const res = await as(owner.token, 'POST', `${directories()}/${id}/test`, {});
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.connected, true);
    assert.match(res.body.problems.join(' '), /service account/);
    await as(owner.token, 'DELETE', `${directories()}/${id}`);
  });

  it('full syncs create, update, follow renames and moves, deactivate on a ppolicy lock and on deletion, and reactivate', async () => {
    const id = (await as(owner.token, 'POST', directories(), directory())).body.id;
    const sync = async () => {
      const started = await as(owner.token, 'POST', `${directories()}/${id}/sync`, {});
      assert.equal(started.status, 202, started.text);
      return eventually('the sync to finish', async () => {
        const res = await as(owner.token, 'GET', `${directories()}/${id}/syncs/${started.body.syncId}`);
        return res.body.state === 'running' ? undefined : res.body;
      });
    };
    const userNamed = async (userName: string) => {
      const res = await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=${userName}`);
      return res.body.users.find((u: { userName: string }) => u.userName === userName) as { userId: string; state: string } | undefined;
    };

    const first = await sync();
    assert.equal(first.state, 'finished', JSON.stringify(first));
    assert.equal(first.kind, 'full');
    assert.deepEqual(first.counts, { created: 3, updated: 0, deactivated: 0, reactivated: 0, unchanged: 0, failed: 0 });
    const alice = (await userNamed('alice'))!;
    const bob = (await userNamed('bob'))!;
    const carol = (await userNamed('carol'))!;
    const aliceRead = await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users/${alice.userId}`);
    assert.equal(aliceRead.body.profile.firstName, 'Alice');
    assert.equal(aliceRead.body.email.email, 'alice@example.org');
    const [added] = await searchEvents(svc, { aggregate_id: alice.userId, event_types: ['user.human.added'] });
    assert.equal(added.payload.source, 'directory');
    assert.equal(added.payload.directoryId, id);

    const unchanged = await sync();
    assert.deepEqual(unchanged.counts, { created: 0, updated: 0, deactivated: 0, reactivated: 0, unchanged: 3, failed: 0 });

    // A change, a rename (uid=bob → uid=robert), a move (carol to another OU), a ppolicy lock and a new person.
    slapd.modify(`dn: uid=alice,${PEOPLE}\nchangetype: modify\nreplace: givenName\ngivenName: Alicia\n`);
    slapd.modify(`dn: uid=bob,${PEOPLE}\nchangetype: modrdn\nnewrdn: uid=robert\ndeleteoldrdn: 1\n`);
    slapd.modify(`dn: uid=carol,${PEOPLE}\nchangetype: modrdn\nnewrdn: uid=carol\ndeleteoldrdn: 1\nnewsuperior: ou=elsewhere,${PEOPLE}\n`);
    slapd.modify(personLdif('dave', { givenName: 'Dave', sn: 'Diver' }), true);
    const second = await sync();
    assert.deepEqual(second.counts, { created: 1, updated: 2, deactivated: 0, reactivated: 0, unchanged: 1, failed: 0 }, JSON.stringify(second));
    assert.equal((await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users/${alice.userId}`)).body.profile.firstName, 'Alicia');
    const robert = (await userNamed('robert'))!;
    assert.equal(robert.userId, bob.userId, 'the rename keeps the user');
    assert.equal((await userNamed('carol'))!.userId, carol.userId, 'the move keeps the user');

    // A ppolicy lock and a deletion deactivate; lifting the lock reactivates.
    slapd.modify(`dn: uid=alice,${PEOPLE}\nchangetype: modify\nreplace: pwdAccountLockedTime\npwdAccountLockedTime: 000001010000Z\n`);
    slapd.modify(`dn: uid=dave,${PEOPLE}\nchangetype: delete\n`);
    const third = await sync();
    assert.deepEqual(third.counts, { created: 0, updated: 0, deactivated: 2, reactivated: 0, unchanged: 2, failed: 0 }, JSON.stringify(third));
    assert.equal((await userNamed('alice'))!.state, 'inactive');
    assert.equal((await userNamed('dave'))!.state, 'inactive');
    const deactivated = await searchEvents(svc, { aggregate_id: alice.userId, event_types: ['user.deactivated'] });
    assert.equal(deactivated.length, 1);

    slapd.modify(`dn: uid=alice,${PEOPLE}\nchangetype: modify\ndelete: pwdAccountLockedTime\n`);
    const fourth = await sync();
    assert.deepEqual(fourth.counts, { created: 0, updated: 0, deactivated: 0, reactivated: 1, unchanged: 2, failed: 0 }, JSON.stringify(fourth));
    assert.equal((await userNamed('alice'))!.state, 'active');
    assert.equal((await userNamed('dave'))!.state, 'inactive', 'who left the directory stays out');

    const listed = await as(owner.token, 'GET', `${directories()}/${id}/syncs`);
    assert.equal(listed.body.syncs.length, 5);
    const finished = await searchEvents(svc, { aggregate_id: id, event_types: ['directory.sync.finished'] });
    assert.equal(finished.length, 5);

    // Removing the directory keeps its users, as local users, inactive.
    assert.equal((await as(owner.token, 'DELETE', `${directories()}/${id}`)).status, 204);
    assert.equal((await userNamed('alice'))!.state, 'inactive');
    assert.equal((await userNamed('robert'))!.state, 'inactive');
  });

  it('a sync of an unreachable directory fails with a reason and deactivates nobody', async () => {
    const id = (await as(owner.token, 'POST', directories(), directory({ url: 'ldap://127.0.0.1:1' }))).body.id;
    const started = await as(owner.token, 'POST', `${directories()}/${id}/sync`, {});
    assert.equal(started.status, 202, started.text);
    const done = await eventually('the sync to end', async () => {
      const res = await as(owner.token, 'GET', `${directories()}/${id}/syncs/${started.body.syncId}`);
      return res.body.state === 'running' ? undefined : res.body;
    });
    assert.equal(done.state, 'failed');
    assert.match(done.failures[0].message, /unreachable/);
    assert.equal(done.counts.deactivated, 0);
    await as(owner.token, 'DELETE', `${directories()}/${id}`);
  });
});
