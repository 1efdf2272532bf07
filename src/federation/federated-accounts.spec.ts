import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Role } from '../common/auth/roles.js';
import { noRoles } from '../users/acting/acting-rule.js';
import type { LinkCandidate } from '../users/queries/link-candidates.js';
import { accountRulesOf, chosenCandidate, claimText, holdsAnyRole, mappedUser } from './federated-accounts.service.js';
import type { OidcSettings, SamlSettings } from './idp-settings.js';

const human = (id: string, more: Partial<LinkCandidate> = {}): LinkCandidate => ({ id, type: 'human', state: 'active', emailVerified: true, ...more });

describe('federation: the user a link rule matched', () => {
  it('links the one active human, by whichever field the rule names', () => {
    for (const by of ['externalId', 'userName', 'email'] as const) {
      assert.deepEqual(chosenCandidate(by, [human('u1')]), { kind: 'link', userId: 'u1', by });
    }
  });

  it('finds no account where nothing matched or only machine users did', () => {
    assert.deepEqual(chosenCandidate('userName', []), { kind: 'refused', reason: 'no_account' });
    assert.deepEqual(chosenCandidate('userName', [human('m1', { type: 'machine' })]), { kind: 'refused', reason: 'no_account' });
  });

  it('refuses a value that names several humans, but ignores machine users beside the one human', () => {
    assert.deepEqual(chosenCandidate('externalId', [human('u1'), human('u2')]), { kind: 'refused', reason: 'ambiguous' });
    assert.deepEqual(chosenCandidate('externalId', [human('m1', { type: 'machine' }), human('u2')]), { kind: 'link', userId: 'u2', by: 'externalId' });
  });

  it('never links a deactivated or locked user', () => {
    for (const state of ['inactive', 'locked']) {
      assert.deepEqual(chosenCandidate('userName', [human('u1', { state })]), { kind: 'refused', reason: 'inactive_user' }, state);
    }
  });

  it('links by e-mail only to a verified local address; an unverified one is no candidate; the other rules do not read it', () => {
    const unverified = [human('u1', { emailVerified: false })];
    assert.deepEqual(chosenCandidate('email', unverified), { kind: 'refused', reason: 'no_account' });
    assert.deepEqual(chosenCandidate('email', [human('u1', { emailVerified: false }), human('u2')]), { kind: 'link', userId: 'u2', by: 'email' });
    assert.deepEqual(chosenCandidate('userName', unverified), { kind: 'link', userId: 'u1', by: 'userName' });
    assert.deepEqual(chosenCandidate('externalId', unverified), { kind: 'link', userId: 'u1', by: 'externalId' });
  });
});

describe('federation: users holding a role are never linked automatically', () => {
  it('sees a role on the instance or in any organization, and none in an empty set', () => {
    assert.equal(holdsAnyRole(noRoles()), false);
    assert.equal(holdsAnyRole({ instanceRoles: new Set([Role.IamOwner]), orgRoles: new Map() }), true);
    assert.equal(holdsAnyRole({ instanceRoles: new Set(), orgRoles: new Map([['o1', new Set([Role.OrgUserManager])]]) }), true);
    assert.equal(holdsAnyRole({ instanceRoles: new Set(), orgRoles: new Map([['o1', new Set()]]) }), false);
  });
});

describe('federation: the user JIT creates from the mapped claims', () => {
  const standard = { preferred_username: 'alice', email: 'alice@example.com', email_verified: true, given_name: 'Alice', family_name: 'Liddell' };

  it('reads the standard claims where the mapping names none', () => {
    assert.deepEqual(mappedUser({}, standard), {
      kind: 'create',
      user: { userName: 'alice', firstName: 'Alice', lastName: 'Liddell', email: 'alice@example.com', emailVerified: true },
    });
  });

  it('reads the claims (or SAML attributes) the mapping names instead, and only those', () => {
    const claims = { ...standard, uid: 'a.liddell', mail: 'al@example.org', givenName: 'Al', sn: 'L' };
    assert.deepEqual(mappedUser({ userName: 'uid', email: 'mail', givenName: 'givenName', familyName: 'sn' }, claims), {
      kind: 'create',
      user: { userName: 'a.liddell', firstName: 'Al', lastName: 'L', email: 'al@example.org', emailVerified: true },
    });
  });

  it('marks the address verified only where the upstream says so with a boolean true', () => {
    for (const sent of [false, 'true', 1, undefined]) {
      const decision = mappedUser({}, { ...standard, email_verified: sent });
      assert.equal(decision.kind === 'create' && decision.user.emailVerified, false, String(sent));
    }
    const noEmail = mappedUser({}, { preferred_username: 'alice', email_verified: true });
    assert.deepEqual(noEmail, { kind: 'create', user: { userName: 'alice', firstName: '', lastName: '', email: undefined, emailVerified: false } });
  });

  it('refuses without a user name claim, or with an empty or non-text one', () => {
    for (const value of [undefined, '', '   ', 42, ['alice']]) {
      assert.deepEqual(mappedUser({}, { ...standard, preferred_username: value }), { kind: 'refused', reason: 'user_name_missing' }, JSON.stringify(value));
    }
    assert.deepEqual(mappedUser({ userName: 'uid' }, standard), { kind: 'refused', reason: 'user_name_missing' });
  });

  it('applies the user name rule of every other surface', () => {
    for (const value of ['al ice', 'ａlice', 'al\u200bice', 'ﬁona']) {
      assert.deepEqual(mappedUser({}, { ...standard, preferred_username: value }), { kind: 'refused', reason: 'user_name_invalid' }, JSON.stringify(value));
    }
  });
});

describe('federation: a claim as text', () => {
  it('trims, and keeps only non-empty strings of at most 255 characters', () => {
    assert.equal(claimText('  alice '), 'alice');
    assert.equal(claimText('a'.repeat(255)), 'a'.repeat(255));
    for (const value of ['a'.repeat(256), '', ' ', 7, true, null, undefined, ['x'], { v: 'x' }]) {
      assert.equal(claimText(value), undefined, JSON.stringify(value));
    }
  });
});

describe('federation: the account rules of an IdP', () => {
  const rules = { link: { by: 'email' as const, from: 'mail' }, jit: true, mfa: 'local' as const };

  it("takes an OIDC IdP's `claims` and a SAML IdP's `attributes` as the mapping", () => {
    const oidc = { ...rules, issuer: 'https://op.example', clientId: 'c', authMethod: 'client_secret_basic', scopes: ['openid'], claims: { userName: 'upn' } };
    assert.deepEqual(accountRulesOf(oidc as OidcSettings), { claims: { userName: 'upn' }, link: rules.link, jit: true });
    const saml = { ...rules, entityId: 'https://idp.example', ssoUrl: 'https://idp.example/sso', attributes: { email: 'mail' } };
    assert.deepEqual(accountRulesOf(saml as unknown as SamlSettings), { claims: { email: 'mail' }, link: rules.link, jit: true });
  });
});
