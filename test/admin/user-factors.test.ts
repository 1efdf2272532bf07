import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { FactorsService } from '../../src/users/factors/factors.service.js';
import { createHuman } from '../oidc/support/oidc-fixtures.js';
import { unique, useService } from '../support/fixtures.js';
import { assertNoSecretsIn, refused, setUpOrg, theEvent } from './helpers.js';
import type { OrgSetup } from './helpers.js';

interface Enrolled {
  userId: string;
  totpId: string;
  totpSecret: string;
  recoveryCodes: string[];
}

interface ListedFactor {
  id: string;
  type: string;
  name?: string;
  createdAt: string;
}

const SOURCE = { clientIpHash: 'test' };

describe('management API: a user’s second factors (list, delete)', () => {
  const svc = useService();
  let factors: FactorsService;
  let a: OrgSetup;
  let b: OrgSetup;
  const path = (orgId: string, userId: string, factorId?: string) => `/management/v1/orgs/${orgId}/users/${userId}/factors${factorId ? `/${factorId}` : ''}`;

  /** A human of the organization with a confirmed TOTP authenticator and recovery codes, enrolled the way sign-in does it. */
  async function enrolledHuman(orgId: string): Promise<Enrolled> {
    const { userId } = await createHuman(svc, orgId);
    const owner = { id: userId, orgId };
    const { factorId, secret } = await factors.startTotp(owner);
    const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    const confirmed = await factors.confirmTotp(owner, factorId, code, SOURCE);
    assert.deepEqual(confirmed, { ok: true, type: 'totp', factorId });
    const recoveryCodes = await factors.newRecoveryCodes(owner);
    assert.equal(recoveryCodes.length, 10);
    return { userId, totpId: factorId, totpSecret: secret, recoveryCodes };
  }

  async function list(orgId: string, userId: string, token = a.manager.token): Promise<ListedFactor[]> {
    const res = await svc.api('GET', path(orgId, userId), { token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['factors', 'total']);
    assert.equal(res.body.total, res.body.factors.length);
    return res.body.factors;
  }

  async function storedFactorIds(userId: string): Promise<string[]> {
    const rows: { id: string }[] = await svc.dataSource.query('SELECT id FROM user_factors WHERE user_id = ? ORDER BY id', [userId]);
    return rows.map((r) => r.id);
  }

  before(async () => {
    factors = svc.app.get(FactorsService);
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  it('names passkeys: by their provider when the AAGUID is known, else "Passkey" and the day they were added', async () => {
    const user = await enrolledHuman(a.org.id);
    const newPasskey = () => ({
      credentialId: randomBytes(32).toString('base64url'),
      publicKey: randomBytes(77).toString('base64url'),
      signCount: 0,
      transports: ['internal' as const],
      multiDevice: true,
      userVerified: true,
    });
    const owner = { id: user.userId, orgId: a.org.id };
    const google = await factors.addPasskey(owner, { ...newPasskey(), aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
    const unknown = await factors.addPasskey(owner, { ...newPasskey(), aaguid: '00000000-0000-0000-0000-000000000000' });
    const res = await svc.api('GET', path(a.org.id, user.userId), { token: a.manager.token });
    assert.equal(res.status, 200, res.text);
    const listed = new Map<string, ListedFactor & { name?: string }>(res.body.factors.map((f: ListedFactor) => [f.id, f]));
    assert.equal(listed.get(google)?.name, 'Google Password Manager');
    assert.equal(listed.get(unknown)?.name, `Passkey (added ${listed.get(unknown)?.createdAt.slice(0, 10)})`);
  });

  it('lists a TOTP authenticator, recovery codes and a passkey with their types, and no secret, code, hash or key', async () => {
    const user = await enrolledHuman(a.org.id);
    // A started but unconfirmed enrolment is no factor yet.
    await factors.startTotp({ id: user.userId, orgId: a.org.id });
    // The login UI stores a passkey once @simplewebauthn has verified its registration; stored directly here.
    const passkey = {
      credentialId: randomBytes(32).toString('base64url'),
      publicKey: randomBytes(77).toString('base64url'),
      signCount: 0,
      transports: ['internal' as const],
    };
    const passkeyId = await factors.addPasskey({ id: user.userId, orgId: a.org.id }, { ...passkey, multiDevice: true, userVerified: true });
    const res = await svc.api('GET', path(a.org.id, user.userId), { token: a.manager.token });
    assert.equal(res.status, 200, res.text);
    const listed: ListedFactor[] = res.body.factors;
    assert.deepEqual(listed.map((f) => f.type).sort(), ['passkey', 'recovery_codes', 'totp']);
    assert.equal(listed.find((f) => f.type === 'totp')?.id, user.totpId);
    assert.equal(listed.find((f) => f.type === 'passkey')?.id, passkeyId);
    for (const factor of listed.filter((f) => f.type !== 'passkey')) {
      assert.deepEqual(Object.keys(factor).sort(), ['createdAt', 'id', 'type'], 'a factor without a name has no name field');
      assert.equal(new Date(factor.createdAt).toISOString(), factor.createdAt);
      assert.ok(Math.abs(Date.now() - Date.parse(factor.createdAt)) < 10 * 60_000, factor.createdAt);
    }
    const stored: Record<string, string | null>[] = await svc.dataSource.query(
      `SELECT f.totp_secret, f.credential_key, c.code_hash FROM user_factors f LEFT JOIN recovery_codes c ON c.factor_id = f.id WHERE f.user_id = ?`,
      [user.userId],
    );
    const secrets = [
      user.totpSecret,
      ...user.recoveryCodes,
      passkey.credentialId,
      passkey.publicKey,
      ...stored.flatMap((r) => Object.values(r)).filter((v): v is string => Boolean(v)),
    ];
    assert.ok(secrets.length >= 1 + 10 + 2 + 2 + 10 + 1, `${secrets.length} secrets`);
    for (const secret of secrets) assert.ok(!res.text.includes(secret), 'the list carries a secret, a code or a hash');
    assert.doesNotMatch(res.text, /secret|hash|code_|publicKey|credential/i);
  });

  it('deletes a factor (204) and records user.human.mfa.removed by its editor, without secrets; a second delete is 404', async () => {
    const user = await enrolledHuman(a.org.id);
    const res = await svc.api('DELETE', path(a.org.id, user.userId, user.totpId), { token: a.manager.token });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    assert.deepEqual(
      (await list(a.org.id, user.userId)).map((f) => f.type),
      ['recovery_codes'],
    );

    const event = await theEvent(svc, 'user.human.mfa.removed', user.userId);
    assert.deepEqual(event.payload, { factorId: user.totpId, type: 'totp', signInFactors: 0 });
    assert.equal(event.editor.userId, a.manager.userId);
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assertNoSecretsIn(event.payload, [user.totpSecret, ...user.recoveryCodes]);

    await refused(svc, 404, () => svc.api('DELETE', path(a.org.id, user.userId, user.totpId), { token: a.manager.token }), 'the same factor again');
  });

  it('deleting the recovery codes removes every stored code with them', async () => {
    const user = await enrolledHuman(a.org.id);
    const [recovery] = (await list(a.org.id, user.userId)).filter((f) => f.type === 'recovery_codes');
    assert.equal((await svc.api('DELETE', path(a.org.id, user.userId, recovery.id), { token: a.manager.token })).status, 204);
    const left: unknown[] = await svc.dataSource.query('SELECT code_hash FROM recovery_codes WHERE factor_id = ?', [recovery.id]);
    assert.deepEqual(left, []);
    assert.deepEqual(await storedFactorIds(user.userId), [user.totpId]);
    assert.deepEqual((await theEvent(svc, 'user.human.mfa.removed', user.userId)).payload, { factorId: recovery.id, type: 'recovery_codes', signInFactors: 1 });
  });

  it('answers 404 for an unknown factor id and for a factor of another user, removing nothing', async () => {
    const user = await enrolledHuman(a.org.id);
    const other = await enrolledHuman(a.org.id);
    for (const bad of ['no-such-factor', '00000000-0000-4000-8000-000000000000', 'x'.repeat(300), `${user.totpId}%20`]) {
      await refused(svc, 404, () => svc.api('DELETE', path(a.org.id, user.userId, bad), { token: a.manager.token }), `factor id ${bad.slice(0, 20)}`);
    }
    await refused(svc, 404, () => svc.api('DELETE', path(a.org.id, user.userId, other.totpId), { token: a.manager.token }), "another user's factor");
    await refused(svc, 404, () => svc.api('GET', path(a.org.id, 'no-such-user'), { token: a.manager.token }), 'unknown user');
    assert.equal((await storedFactorIds(user.userId)).length, 2);
    assert.equal((await storedFactorIds(other.userId)).length, 2);
  });

  it("an ORG_USER_MANAGER may neither list nor remove an ORG_OWNER's factors (403, nothing removed); an ORG_OWNER may", async () => {
    const owner = await enrolledHuman(a.org.id);
    const member = await svc.api('PUT', `/management/v1/orgs/${a.org.id}/members/${owner.userId}`, { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } });
    assert.equal(member.status, 200, member.text);

    const listing = await refused(svc, 403, () => svc.api('GET', path(a.org.id, owner.userId), { token: a.manager.token }), 'list');
    assert.match(listing.body.message, /ORG_OWNER/);
    await refused(svc, 403, () => svc.api('DELETE', path(a.org.id, owner.userId, owner.totpId), { token: a.manager.token }), 'delete');
    assert.equal((await storedFactorIds(owner.userId)).length, 2);

    assert.equal((await list(a.org.id, owner.userId, a.owner.token)).length, 2);
    assert.equal((await svc.api('DELETE', path(a.org.id, owner.userId, owner.totpId), { token: a.owner.token })).status, 204);
    assert.equal((await theEvent(svc, 'user.human.mfa.removed', owner.userId)).editor.userId, a.owner.userId);
  });

  it("answers 404 for a user of another organization, through the caller's organization and through the other's", async () => {
    const victim = await enrolledHuman(b.org.id);
    await refused(svc, 404, () => svc.api('GET', path(a.org.id, victim.userId), { token: a.manager.token }), 'own org, foreign user');
    await refused(svc, 404, () => svc.api('DELETE', path(a.org.id, victim.userId, victim.totpId), { token: a.manager.token }), 'own org, foreign user, delete');
    await refused(svc, 404, () => svc.api('GET', path(b.org.id, victim.userId), { token: a.manager.token }), 'foreign org');
    await refused(svc, 404, () => svc.api('DELETE', path(b.org.id, victim.userId, victim.totpId), { token: a.owner.token }), 'foreign org, delete');
    assert.equal((await storedFactorIds(victim.userId)).length, 2);
    assert.equal((await list(b.org.id, victim.userId, b.manager.token)).length, 2, "the other organization's manager sees them");
  });

  it('is documented in the OpenAPI document, with the factor types', async () => {
    const doc = await svc.api('GET', '/docs-json');
    assert.equal(doc.status, 200);
    const listed = doc.body.paths['/management/v1/orgs/{orgId}/users/{userId}/factors'];
    const removed = doc.body.paths['/management/v1/orgs/{orgId}/users/{userId}/factors/{factorId}'];
    assert.ok(listed?.get && removed?.delete, 'both routes are documented');
    assert.equal(listed.get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/UserFactorListDto');
    assert.ok(removed.delete.responses['204'] && removed.delete.responses['404'], JSON.stringify(removed.delete.responses));
    const factor = doc.body.components.schemas.UserFactorDto;
    assert.deepEqual(factor.properties.type.enum, ['totp', 'passkey', 'recovery_codes']);
    assert.deepEqual(factor.required.sort(), ['createdAt', 'id', 'type']);
  });

  it('needs a token (401) and ORG_USER_MANAGER (403 for a user without roles)', async () => {
    const user = await enrolledHuman(a.org.id);
    await refused(svc, 401, () => svc.api('GET', path(a.org.id, user.userId), {}));
    await refused(svc, 401, () => svc.api('DELETE', path(a.org.id, user.userId, user.totpId), {}));
    await refused(svc, 401, () => svc.api('DELETE', path(a.org.id, user.userId, user.totpId), { token: `${unique('x')}-not-a-token` }));
    await refused(svc, 403, () => svc.api('GET', path(a.org.id, user.userId), { token: a.member.token }));
    await refused(svc, 403, () => svc.api('DELETE', path(a.org.id, user.userId, user.totpId), { token: a.member.token }));
    assert.equal((await storedFactorIds(user.userId)).length, 2);
  });
});
