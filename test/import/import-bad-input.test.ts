import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRows, createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { BCRYPT_HASH, humanUser, importBody, importedIds, postImport, storedCounts, userErrors } from './import.helpers.js';

/** Per-user problems are error entries of a 200; a bad request as a whole is a 4xx. */
describe('POST /admin/v1/import with bad input', () => {
  const svc = useService();

  it('reports each bad user by id with a clear message, imports the others, and never echoes a hash', async () => {
    const org = await createOrg(svc);
    const taken = unique('taken');
    await postImport(svc, importBody([{ orgId: org.id, humanUsers: [humanUser(unique('u'), taken)] }]));

    const good = humanUser(unique('good'));
    const garbled = '$2b$10$tooshort';
    const cases: [ReturnType<typeof humanUser>, RegExp][] = [
      [humanUser('no-name', '', { email: { email: 'no-name@example.com' } }), /^user\.userName is required$/],
      [humanUser('bad-email', unique('x'), { email: { email: 'not-an-address' } }), /^user\.email\.email must be an e-mail address$/],
      [
        humanUser('no-password', unique('x'), { hashedPassword: undefined }),
        /^a password is required: user\.hashedPassword\.value \(a password hash\) or user\.password$/,
      ],
      [humanUser('garbled-hash', unique('x'), { hashedPassword: { value: garbled } }), /^user\.hashedPassword\.value: malformed bcrypt hash: /],
      [
        humanUser('unsupported-hash', unique('x'), { hashedPassword: { value: '$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7' } }),
        /unsupported password hash format '\$y\$'/,
      ],
      [humanUser('both-passwords', unique('x'), { password: 'long enough password' }), /either user\.hashedPassword or user\.password, not both/],
      [humanUser('short-password', unique('x'), { hashedPassword: undefined, password: 'x' }), /^user\.password must be at least \d+ characters/],
      [humanUser('name-taken', taken.toUpperCase()), new RegExp(`^the userName "${taken.toUpperCase()}" already exists in organization ${org.id}$`)],
      [humanUser('unknown-field', unique('x'), { idps: [] }), /^user\.idps is not a known field$/],
      [humanUser('no-first-name', unique('x'), { profile: { lastName: 'L' } }), /^user\.profile\.firstName is required$/],
      [humanUser('bad-phone', unique('x'), { phone: { phone: 'call me' } }), /^user\.phone\.phone must be a phone number/],
      [humanUser('bad id with spaces'), /^userId must be 1 to 64 letters/],
    ];
    const repeatedName = unique('twice');
    const first = humanUser(unique('first'), repeatedName);
    const second = humanUser('repeated-name', repeatedName.toUpperCase());
    const response = await postImport(svc, importBody([{ orgId: org.id, humanUsers: [good, ...cases.map(([item]) => item), first, second] }]));

    assert.deepEqual(importedIds(response, org.id), [good.userId, first.userId]);
    const errors = userErrors(response);
    for (const [item, message] of cases) assert.match(errors.get(item.userId) ?? '(no entry)', message, item.userId);
    assert.equal(errors.get('repeated-name'), `userName "${repeatedName.toUpperCase()}" is repeated in this import (also user ${first.userId})`);
    assert.equal(response.errors.filter((e) => e.type === 'user').length, cases.length + 1);
    assert.ok(!JSON.stringify(response).includes(garbled.slice(7)) && !JSON.stringify(response).includes(BCRYPT_HASH.slice(7)), 'no hash echoed');
    assert.ok(!JSON.stringify(response).includes('long enough password'), 'no password echoed');
    assert.deepEqual(await storedCounts(svc, org.id), { users: 3, events: 3 });
  });

  it('refuses a userId repeated within the import, even across organizations', async () => {
    const [a, b] = [await createOrg(svc), await createOrg(svc)];
    const id = unique('dup');
    const response = await postImport(
      svc,
      importBody([
        { orgId: a.id, humanUsers: [humanUser(id)] },
        { orgId: b.id, humanUsers: [humanUser(id)] },
      ]),
    );
    assert.deepEqual(importedIds(response), [id]);
    assert.equal(userErrors(response).get(id), `userId "${id}" is repeated in this import`);
  });

  it('treats an organization named twice in one request as one, created once', async () => {
    const orgId = unique('twice');
    const [a, b] = [humanUser(unique('u')), humanUser(unique('u'))];
    const response = await postImport(
      svc,
      importBody([
        { orgId, org: { name: orgId }, humanUsers: [a] },
        { orgId, humanUsers: [b] },
      ]),
    );
    assert.deepEqual(response, { success: { orgs: [{ orgId, humanUserIds: [a.userId, b.userId] }] }, errors: [] });
  });

  it('reports an organization without orgId as an org entry and goes on with the next one', async () => {
    const org = await createOrg(svc);
    const id = unique('u');
    const response = await postImport(svc, importBody([{ humanUsers: [humanUser(unique('u'))] }, { orgId: org.id, humanUsers: [humanUser(id)] }]));
    assert.deepEqual(importedIds(response), [id]);
    assert.deepEqual(response.errors[0], { type: 'org', id: '', message: 'orgs[0]: orgId is required; its 1 users were not imported' });
  });

  it('answers malformed JSON with 400 and writes nothing', async () => {
    const before = { users: await countRows(svc, 'users'), events: await countRows(svc, 'events'), orgs: await countRows(svc, 'organizations') };
    const res = await svc.api('POST', '/admin/v1/import', {
      token: svc.adminToken,
      rawBody: JSON.stringify(importBody([{ orgId: unique('o'), humanUsers: [humanUser(unique('u'))] }])).slice(0, -3),
    });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /^malformed JSON/);
    assert.deepEqual({ users: await countRows(svc, 'users'), events: await countRows(svc, 'events'), orgs: await countRows(svc, 'organizations') }, before);
  });

  it('answers a bad envelope and an invalid timeout with 400 naming the field, and writes nothing', async () => {
    const before = await countRows(svc, 'events');
    const cases: [unknown, string][] = [
      [{}, 'dataOrgs'],
      [{ dataOrgs: { orgs: {} } }, 'dataOrgs.orgs'],
      [{ dataOrgs: { orgs: [{ orgId: 'o', humanUsers: 'x' }] } }, 'dataOrgs.orgs.0.humanUsers'],
      [{ dataOrgs: { orgs: [] }, extra: 1 }, 'extra'],
      [importBody([], '10 minutes'), 'timeout'],
      [importBody([], '-5m'), 'timeout'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.api('POST', '/admin/v1/import', { token: svc.adminToken, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        `${field} named in ${res.text}`,
      );
    }
    const timeout = await svc.api('POST', '/admin/v1/import', { token: svc.adminToken, body: importBody([], 'soon') });
    assert.match(timeout.body.message, /timeout must be a positive duration in Go notation, such as 10m, 1m30s or 500ms/);
    assert.equal(await countRows(svc, 'events'), before);
  });

  it('needs a token (401) of an IAM_OWNER (403)', async () => {
    const org = await createOrg(svc);
    const body = importBody([{ orgId: org.id, humanUsers: [humanUser(unique('u'))] }]);
    assert.equal((await svc.api('POST', '/admin/v1/import', { body })).status, 401);
    const owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    assert.equal((await svc.api('POST', '/admin/v1/import', { token: owner.token, body })).status, 403);
    assert.deepEqual(await storedCounts(svc, org.id), { users: 0, events: 0 });
  });
});
