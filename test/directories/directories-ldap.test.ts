import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from 'ldapts';
import { eventually } from '../faults/faults.helpers.js';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { findSecretsAtRest } from '../support/secret-scan.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import { UserEditService } from '../../src/users/user-edit.service.js';

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
    // Creating people at sign-in is not built; writing passwords back needs the check by bind.
    for (const [field, extra] of [
      ['jit', { jit: true }],
      ['writeBack', { writeBack: true, passwordCheck: 'off' }],
    ] as const) {
      const res = await as(owner.token, 'POST', directories(), directory({ url: slapd.url, ...extra }));
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

  /** True when `dn` binds to slapd with `password` (a bind alone: ppolicy restricts a reset entry's other operations). */
  const bindsWith = async (dn: string, password: string) => {
    const client = new Client({ url: slapd.url });
    try {
      await client.bind(dn, password);
      return true;
    } catch {
      return false;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };
  /** Starts a sync of `id` and waits for its end. */
  const syncOf = async (id: string, body: Record<string, unknown> = {}) => {
    const started = await as(owner.token, 'POST', `${directories()}/${id}/sync`, body);
    assert.equal(started.status, 202, started.text);
    return eventually('the sync to finish', async () => {
      const res = await as(owner.token, 'GET', `${directories()}/${id}/syncs/${started.body.syncId}`);
      return res.body.state === 'running' ? undefined : res.body;
    });
  };
  const counts = (created: number, updated: number, deactivated: number, reactivated: number, unchanged: number) => ({
    created,
    updated,
    deactivated,
    reactivated,
    unchanged,
    failed: 0,
  });

  it('incremental syncs read only what changed since the last (modifyTimestamp), still find deletions and leavers, and fall back to full', async () => {
    const STAFF = `ou=staff,${SUFFIX}`;
    slapd.modify(`dn: ${STAFF}\nobjectClass: organizationalUnit\nou: staff\n`, true);
    // Entries unchanged since 2020 (the Relax Rules control lets the administrator set modifyTimestamp).
    const old = (uid: string) => `${personLdif(uid, { ou: STAFF })}modifyTimestamp: 20200101000000Z\n`;
    slapd.modify(['erin', 'frank', 'gina', 'hank'].map(old).join('\n'), true, true);
    const id = (await as(owner.token, 'POST', directories(), directory({ usersDn: STAFF, groupsDn: null }))).body.id;

    const first = await syncOf(id);
    assert.equal(first.kind, 'full');
    assert.deepEqual(first.counts, counts(4, 0, 0, 0, 0));

    // A change, a new person, a deletion and a move out of usersDn.
    slapd.modify(`dn: uid=erin,${STAFF}\nchangetype: modify\nreplace: givenName\ngivenName: Erina\n`);
    slapd.modify(personLdif('ivan', { ou: STAFF }), true);
    slapd.modify(`dn: uid=frank,${STAFF}\nchangetype: delete\n`);
    slapd.modify(`dn: uid=gina,${STAFF}\nchangetype: modrdn\nnewrdn: uid=gina\ndeleteoldrdn: 1\nnewsuperior: ou=services,${SUFFIX}\n`);
    const second = await syncOf(id);
    assert.equal(second.kind, 'incremental', JSON.stringify(second));
    // hank is read again: the first cursor is just before 2020, the latest time the full sync saw.
    assert.deepEqual(second.counts, counts(1, 1, 2, 0, 1), JSON.stringify(second));
    const erin = (await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=erin`)).body.users.find(
      (u: { userName: string }) => u.userName === 'erin',
    );
    assert.equal((await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users/${erin.userId}`)).body.profile.firstName, 'Erina');

    // Now the cursor is this moment's: hank, unchanged since 2020, is not read; ivan may be (within the sync's margin).
    slapd.modify(`dn: uid=erin,${STAFF}\nchangetype: modify\nreplace: sn\nsn: Early\n`);
    const third = await syncOf(id);
    assert.equal(third.kind, 'incremental');
    assert.deepEqual({ ...third.counts, unchanged: 0 }, counts(0, 1, 0, 0, 0), JSON.stringify(third));
    assert.ok(third.counts.unchanged <= 1, `only what changed lately is read: ${JSON.stringify(third.counts)}`);

    // Asked for, a full sync reads everyone (erin, hank, ivan).
    const full = await syncOf(id, { full: true });
    assert.equal(full.kind, 'full');
    assert.deepEqual(full.counts, counts(0, 0, 0, 0, 3), JSON.stringify(full));

    // Another mapping makes the cursor meaningless: the next sync is full.
    assert.equal((await as(owner.token, 'PATCH', `${directories()}/${id}`, { attributes: { phone: 'mobile' } })).status, 200);
    const remapped = await syncOf(id);
    assert.equal(remapped.kind, 'full');
    assert.deepEqual(remapped.counts, counts(0, 0, 0, 0, 3), JSON.stringify(remapped));
    await as(owner.token, 'DELETE', `${directories()}/${id}`);
  });

  it('LDAPS whose certificate another CA signed: the test endpoint and the sync refuse it with a TLS reason, and nothing is synced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrong-ca-'));
    try {
      // A CA of its own, which did not sign slapd's certificate, pinned in place of the right one.
      const wrongCa = readFileSync(throwAwayCa(dir).ca, 'utf8');
      assert.notEqual(wrongCa, slapd.caPem);
      const users = await countRows(svc, 'users');
      const id = (await as(owner.token, 'POST', directories(), directory({ url: slapd.ldapsUrl, caCertificate: wrongCa }))).body.id;
      const tested = (await as(owner.token, 'POST', `${directories()}/${id}/test`, {})).body;
      assert.equal(tested.connected, false);
      assert.deepEqual(tested.users, []);
      assert.match(tested.problems[0], /^TLS: .*certificate/i);
      const done = await syncOf(id);
      assert.equal(done.state, 'failed');
      assert.match(done.failures[0].message, /TLS: .*certificate/i);
      assert.deepEqual(done.counts, counts(0, 0, 0, 0, 0));
      assert.equal(await countRows(svc, 'users'), users);
      await as(owner.token, 'DELETE', `${directories()}/${id}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a directory user's synced fields are read-only in the management API and SCIM: 409 naming the directory, nothing changed", async () => {
    const OU = `ou=readonly,${SUFFIX}`;
    slapd.modify(`dn: ${OU}\nobjectClass: organizationalUnit\nou: readonly\n\n${personLdif('rita', { ou: OU, givenName: 'Rita', sn: 'Reed' })}`, true);
    const name = unique('Read-only LDAP');
    const id = (await as(owner.token, 'POST', directories(), directory({ name, usersDn: OU, groupsDn: null }))).body.id;
    assert.deepEqual((await syncOf(id)).counts, counts(1, 0, 0, 0, 0));
    const rita = (await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=rita`)).body.users.find(
      (u: { userName: string }) => u.userName === 'rita',
    );
    const userPath = `/management/v1/orgs/${orgId}/users/${rita.userId}`;
    const changedBefore = (await searchEvents(svc, { aggregate_id: rita.userId })).length;

    for (const body of [{ profile: { firstName: 'Margarita' } }, { userName: 'rita2' }, { email: { email: 'rita@elsewhere.example' } }]) {
      const res = await as(owner.token, 'PATCH', userPath, body);
      assert.equal(res.status, 409, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, /come from the directory/);
      assert.ok(res.text.includes(name), res.text);
    }
    const scim = (method: string, path: string, body: unknown) =>
      svc.api(method, `/scim/v2/${orgId}${path}`, {
        token: manager.token,
        body,
        headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json' },
      });
    const put = await scim('PUT', `/Users/${rita.userId}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'rita',
      name: { givenName: 'Margarita', familyName: 'Reed' },
      emails: [{ value: 'rita@example.org', type: 'work', primary: true }],
    });
    assert.equal(put.status, 409, put.text);
    assert.match(put.text, /directory/);
    const patch = await scim('PATCH', `/Users/${rita.userId}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.familyName', value: 'Roe' }],
    });
    assert.equal(patch.status, 409, patch.text);

    const read = (await as(owner.token, 'GET', userPath)).body;
    assert.equal(read.userName, 'rita');
    assert.equal(read.profile.firstName, 'Rita');
    assert.equal(read.profile.lastName, 'Reed');
    assert.equal(read.email.email, 'rita@example.org');
    assert.equal((await searchEvents(svc, { aggregate_id: rita.userId })).length, changedBefore, 'no event: nothing changed');

    // What the directory does not keep stays writable.
    const language = await as(owner.token, 'PATCH', userPath, { profile: { preferredLanguage: 'de' } });
    assert.equal(language.status, 200, language.text);
    // Once the directory is removed, its users are local ones again, and writable.
    assert.equal((await as(owner.token, 'DELETE', `${directories()}/${id}`)).status, 204);
    assert.equal((await as(owner.token, 'PATCH', userPath, { profile: { firstName: 'Margarita' } })).status, 200);
  });

  it('groups come with their members, through nesting too; a rename or a move keeps the group; a removed one goes; they are read-only', async () => {
    const OU = `ou=grouped,${SUFFIX}`;
    const TEAMS = `ou=teams,${SUFFIX}`;
    const person = (uid: string) => `uid=${uid},${OU}`;
    slapd.modify(
      [
        `dn: ${OU}\nobjectClass: organizationalUnit\nou: grouped\n`,
        ...['gwen', 'hugo', 'iris', 'jack'].map((uid) => personLdif(uid, { ou: OU })),
        `dn: ${TEAMS}\nobjectClass: organizationalUnit\nou: teams\n`,
        `dn: ou=archive,${TEAMS}\nobjectClass: organizationalUnit\nou: archive\n`,
        // engineers ⊃ platform ⊃ engineers: a cycle, which the sync must end.
        `dn: cn=engineers,${TEAMS}\nobjectClass: groupOfNames\ncn: engineers\nmember: ${person('gwen')}\nmember: cn=platform,${TEAMS}\n`,
        `dn: cn=platform,${TEAMS}\nobjectClass: groupOfNames\ncn: platform\nmember: ${person('hugo')}\nmember: cn=engineers,${TEAMS}\n`,
        // Spaces and case in a member DN as another tool may write them.
        `dn: cn=ops,${TEAMS}\nobjectClass: groupOfUniqueNames\ncn: ops\nuniqueMember: UID=iris, ou=grouped, dc=example, dc=org\n`,
        `dn: cn=posix,${TEAMS}\nobjectClass: posixGroup\ncn: posix\ngidNumber: 5001\nmemberUid: jack\n`,
      ].join('\n'),
      true,
    );
    const name = unique('Grouped LDAP');
    const id = (await as(owner.token, 'POST', directories(), directory({ name, usersDn: OU, groupsDn: TEAMS }))).body.id;
    const groupCounts = (created: number, updated: number, removed: number, unchanged: number) => ({ created, updated, removed, unchanged, failed: 0 });
    const first = await syncOf(id);
    assert.equal(first.state, 'finished', JSON.stringify(first));
    assert.deepEqual(first.counts, counts(4, 0, 0, 0, 0));
    assert.deepEqual(first.groups, groupCounts(4, 0, 0, 0), JSON.stringify(first));

    const scim = (method: string, path: string, body?: unknown) =>
      svc.api(method, `/scim/v2/${orgId}${path}`, {
        token: manager.token,
        body,
        headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json' },
      });
    const groupNamed = async (displayName: string) => {
      const res = await scim('GET', `/Groups?filter=${encodeURIComponent(`displayName eq "${displayName}"`)}`);
      assert.equal(res.status, 200, res.text);
      const [group] = res.body.Resources as { id: string; externalId: string; members?: { display: string }[] }[];
      return group && { ...group, members: (group.members ?? []).map((m) => m.display).sort() };
    };
    const engineers = (await groupNamed('engineers'))!;
    assert.deepEqual(engineers.members, ['gwen Person', 'hugo Person']);
    assert.match(engineers.externalId, /^[0-9a-f-]{36}$/, 'the stable id is the external id');
    const platform = (await groupNamed('platform'))!;
    assert.deepEqual(platform.members, ['gwen Person', 'hugo Person']);
    const ops = (await groupNamed('ops'))!;
    assert.deepEqual(ops.members, ['iris Person']);
    assert.deepEqual((await groupNamed('posix'))!.members, ['jack Person']);
    const [added] = await searchEvents(svc, { aggregate_id: engineers.id, event_types: ['group.added'] });
    assert.equal(added.payload.source, 'directory');
    assert.equal(added.payload.directoryId, id);

    // Read-only: SCIM and the management API answer 409 naming the directory, and change nothing.
    const patch = await scim('PATCH', `/Groups/${engineers.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: 'builders' }],
    });
    assert.equal(patch.status, 409, patch.text);
    assert.ok(patch.text.includes(name), patch.text);
    const jack = (await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=jack`)).body.users[0];
    const groupPath = `/management/v1/orgs/${orgId}/groups/${engineers.id}`;
    const add = await as(owner.token, 'PUT', `${groupPath}/members/${jack.userId}`);
    assert.equal(add.status, 409, add.text);
    assert.ok(add.text.includes(name), add.text);
    assert.equal((await as(owner.token, 'DELETE', groupPath)).status, 409);
    assert.equal((await scim('DELETE', `/Groups/${engineers.id}`)).status, 409);
    assert.deepEqual((await groupNamed('engineers'))!.members, ['gwen Person', 'hugo Person']);

    // A rename (platform → platform-team), a move (ops into ou=archive), gwen out of engineers, posix deleted.
    slapd.modify(`dn: cn=platform,${TEAMS}\nchangetype: modrdn\nnewrdn: cn=platform-team\ndeleteoldrdn: 1\n`);
    // What the refint overlay does on a rename: the groups that name it follow.
    slapd.modify(
      `dn: cn=engineers,${TEAMS}\nchangetype: modify\ndelete: member\nmember: cn=platform,${TEAMS}\n-\nadd: member\nmember: cn=platform-team,${TEAMS}\n`,
    );
    slapd.modify(`dn: cn=ops,${TEAMS}\nchangetype: modrdn\nnewrdn: cn=ops\ndeleteoldrdn: 1\nnewsuperior: ou=archive,${TEAMS}\n`);
    slapd.modify(`dn: cn=engineers,${TEAMS}\nchangetype: modify\ndelete: member\nmember: ${person('gwen')}\n`);
    slapd.modify(`dn: cn=posix,${TEAMS}\nchangetype: delete\n`);
    const second = await syncOf(id);
    // engineers loses gwen; platform-team is renamed and loses gwen too, who came to it through engineers.
    assert.deepEqual(second.groups, groupCounts(0, 2, 1, 1), JSON.stringify(second));
    assert.deepEqual((await groupNamed('engineers'))!.members, ['hugo Person']);
    const renamed = (await groupNamed('platform-team'))!;
    assert.equal(renamed.id, platform.id, 'the rename keeps the group');
    assert.equal(await groupNamed('platform'), undefined);
    assert.equal((await groupNamed('ops'))!.id, ops.id, 'the move keeps the group');
    assert.equal(await groupNamed('posix'), undefined, 'a group gone from the directory goes');
    const removed = await searchEvents(svc, { aggregate_id: engineers.id, event_types: ['group.member.removed'] });
    assert.equal(removed.length, 1);

    // A person who leaves the directory leaves its groups.
    slapd.modify(`dn: ${person('hugo')}\nchangetype: delete\n`);
    const third = await syncOf(id);
    assert.equal(third.counts.deactivated, 1);
    assert.deepEqual((await groupNamed('engineers'))!.members, []);

    // Once the directory is removed, its groups are local ones again, and writable.
    assert.equal((await as(owner.token, 'DELETE', `${directories()}/${id}`)).status, 204);
    const local = await as(owner.token, 'PUT', `${groupPath}/members/${jack.userId}`);
    assert.ok(local.status < 300, local.text);
  });

  it("no editor is no pass: a write of synced fields without the sync's own writer is refused, whoever makes it", async () => {
    const OU = `ou=noeditor,${SUFFIX}`;
    slapd.modify(`dn: ${OU}\nobjectClass: organizationalUnit\nou: noeditor\n\n${personLdif('nora', { ou: OU, givenName: 'Nora' })}`, true);
    const id = (await as(owner.token, 'POST', directories(), directory({ usersDn: OU, groupsDn: null }))).body.id;
    assert.deepEqual((await syncOf(id)).counts, counts(1, 0, 0, 0, 0));
    const nora = (await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=nora`)).body.users[0];
    // The service itself (no editor), as bootstrap, imports and sign-in bookkeeping write.
    const edits = svc.app.get(UserEditService);
    await assert.rejects(edits.change(null, orgId, nora.userId, { profile: { firstName: 'Eleonora' } }), (error: Error) => {
      assert.match(error.message, /come from the directory/);
      return true;
    });
    assert.equal((await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users/${nora.userId}`)).body.profile.firstName, 'Nora');
    // The directory's own sync still writes them.
    slapd.modify(`dn: uid=nora,${OU}\nchangetype: modify\nreplace: givenName\ngivenName: Eleonora\n`);
    assert.deepEqual((await syncOf(id, { full: true })).counts, counts(0, 1, 0, 0, 0));
    assert.equal((await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users/${nora.userId}`)).body.profile.firstName, 'Eleonora');
    await as(owner.token, 'DELETE', `${directories()}/${id}`);
  });

  it('a host the IAM_OWNER did not allow is refused before any connection: at create and PATCH, and by the test, the sync and a narrowed list', async () => {
    // A listener on a loopback port slapd is not on: it counts every connection made to it.
    let connections = 0;
    const listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const elsewhere = `ldap://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const slapdPort = new URL(slapd.url).port;
    try {
      const id = (await as(owner.token, 'POST', directories(), directory({ groupsDn: null }))).body.id;
      assert.equal((await setHosts([`127.0.0.1:${slapdPort}`])).status, 200);
      const created = await as(owner.token, 'POST', directories(), directory({ url: elsewhere }));
      assert.equal(created.status, 400, created.text);
      assert.match(created.text, /url/);
      const moved = await as(owner.token, 'PATCH', `${directories()}/${id}`, { url: elsewhere });
      assert.equal(moved.status, 400, moved.text);
      // A name the list does not name is judged by its addresses; one that does not resolve is refused.
      const unresolved = await as(owner.token, 'POST', directories(), directory({ url: 'ldap://no-such-host.invalid:389', startTls: true }));
      assert.equal(unresolved.status, 400, unresolved.text);
      assert.equal((await as(owner.token, 'GET', `${directories()}/${id}`)).body.url, slapd.url, 'nothing changed');

      // Allowed while the list allowed it, then the list narrowed: the test and the sync refuse it without connecting.
      assert.equal((await setHosts(['127.0.0.1'])).status, 200);
      assert.equal((await as(owner.token, 'PATCH', `${directories()}/${id}`, { url: elsewhere })).status, 200);
      assert.equal((await setHosts([`127.0.0.1:${slapdPort}`])).status, 200);
      const tested = (await as(owner.token, 'POST', `${directories()}/${id}/test`, {})).body;
      assert.equal(tested.connected, false);
      assert.match(tested.problems[0], /not an allowed directory host/);
      const done = await syncOf(id);
      assert.equal(done.state, 'failed');
      assert.match(done.failures[0].message, /not an allowed directory host/);
      assert.equal(connections, 0, 'no connection reached the host that is not allowed');
      await as(owner.token, 'DELETE', `${directories()}/${id}`);

      // A name the list does not name, whose every address is in a listed range, is allowed; the socket goes to the
      // addresses that were checked.
      assert.equal((await setHosts(['127.0.0.0/8', '::1'])).status, 200);
      const byName = await as(owner.token, 'POST', directories(), directory({ url: `ldap://localhost:${slapdPort}`, groupsDn: null }));
      assert.equal(byName.status, 201, byName.text);
      const reached = (await as(owner.token, 'POST', `${directories()}/${byName.body.id}/test`, {})).body;
      assert.equal(reached.connected, true, JSON.stringify(reached));
      await as(owner.token, 'DELETE', `${directories()}/${byName.body.id}`);
    } finally {
      await setHosts(['ldap.corp.example:636', '10.20.0.0/16', '127.0.0.1']);
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('a password set in Portcullis is written to slapd by Password Modify when writeBack is on (checked by a bind), else a 409', async () => {
    const OU = `ou=writeback,${SUFFIX}`;
    slapd.modify(`dn: ${OU}\nobjectClass: organizationalUnit\nou: writeback\n\n${personLdif('walt', { ou: OU, password: 'Walt-LDAP-pw-1' })}`, true);
    const name = unique('Write-back LDAP');
    const id = (await as(owner.token, 'POST', directories(), directory({ name, usersDn: OU, groupsDn: null }))).body.id;
    assert.deepEqual((await syncOf(id)).counts, counts(1, 0, 0, 0, 0));
    const walt = (await as(owner.token, 'GET', `/management/v1/orgs/${orgId}/users?query=walt`)).body.users[0];
    const path = `/management/v1/orgs/${orgId}/users/${walt.userId}/password`;
    const refused = await as(owner.token, 'PUT', path, { password: 'Walt-new-pw-22' });
    assert.equal(refused.status, 409, refused.text);
    assert.ok(refused.text.includes(name), refused.text);
    assert.ok(await bindsWith(`uid=walt,${OU}`, 'Walt-LDAP-pw-1'), 'nothing changed in slapd');

    assert.equal((await as(owner.token, 'PATCH', `${directories()}/${id}`, { writeBack: true })).status, 200);
    const reset = await as(owner.token, 'PUT', path, { password: 'Walt-new-pw-22' });
    assert.equal(reset.status, 200, reset.text);
    assert.ok(await bindsWith(`uid=walt,${OU}`, 'Walt-new-pw-22'), 'slapd took the new password');
    assert.ok(!(await bindsWith(`uid=walt,${OU}`, 'Walt-LDAP-pw-1')), 'the old one no longer binds');
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [walt.userId]);
    assert.equal(row.password_hash, null, 'no hash is stored here');
    const [changed] = await searchEvents(svc, { aggregate_id: walt.userId, event_types: ['user.human.password.changed'] });
    assert.equal(changed.payload.source, 'directory');
    assert.ok(!JSON.stringify(changed).includes('Walt-new-pw-22'));
    await as(owner.token, 'DELETE', `${directories()}/${id}`);
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
