import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocumentFault } from '../migration-plan.js';
import { changedHalves, userFingerprint } from '../steps/user-update.js';
import { planZitadel } from './zitadel.source.js';

const human = (userId: string, extra: Record<string, unknown> = {}) => ({
  userId,
  user: { userName: `u${userId}`, profile: { firstName: 'A', lastName: 'B' }, email: { email: `u${userId}@example.com` }, ...extra },
});

describe('planZitadel', () => {
  it('reads one organization, in protobuf JSON with defaults left out, and lists what has no counterpart', () => {
    const plan = planZitadel({
      orgs: [
        {
          orgId: '1',
          org: { name: 'Acme' },
          humanUsers: [human('10', { hashedPassword: { value: '$md5$plain', algorithm: 'md5' } }), human('11', { otpCode: 'JBSWY3DPEHPK3PXP' })],
          projects: [{ projectId: 'p', project: { name: 'Shop' } }],
          projectRoles: [{ projectId: 'p', roleKey: 'viewer' }],
          oidcApps: [
            { appId: 'a', app: { projectId: 'p', name: 'web', redirectUris: ['https://x.example/cb'], grantTypes: ['OIDC_GRANT_TYPE_TOKEN_EXCHANGE'] } },
          ],
          userGrants: [{ userId: '11', projectId: 'p', roleKeys: ['viewer', 'ghost'] }],
          actions: [],
          userMetadata: [{ id: '11', key: 'k', value: 'dg==' }],
        },
      ],
    });
    assert.equal(plan.container, '1');
    assert.equal(plan.orgName, 'Acme');
    assert.deepEqual(
      plan.failures.map((f) => f.sourceId),
      ['10'],
      'a hash format not verified here is one failure',
    );
    assert.ok(!JSON.stringify(plan.failures).includes('$md5$plain'), 'the hash is not in the message');
    assert.equal(plan.users[0].totpSecret, 'JBSWY3DPEHPK3PXP');
    const [app] = plan.projects![0].apps;
    assert.deepEqual(
      [app.authMethod, app.accessTokenType, app.responseTypes],
      ['client_secret_basic', 'opaque', ['code']],
      'enum defaults left out of the JSON',
    );
    assert.deepEqual(plan.projects![0].grants.get('11'), ['viewer']);
    const paths = plan.unmapped.map((u) => u.path);
    assert.ok(paths.includes('orgs[0].oidcApps[0].app.grantTypes[0]'));
    assert.ok(paths.includes('orgs[0].userMetadata'));
    assert.ok(!paths.includes('orgs[0].actions'), 'an empty field is not listed');
  });

  it('refuses a document of no or several organizations, or a field of the wrong type, naming its path', () => {
    const fault = (document: unknown) => {
      try {
        planZitadel(document);
      } catch (error) {
        assert.ok(error instanceof DocumentFault);
        return `${error.path}: ${error.problem}`;
      }
      assert.fail('refused');
    };
    assert.match(fault({ dataOrgs: { orgs: [] } }), /^document\.dataOrgs\.orgs: holds 0/);
    assert.match(fault({ orgs: [{ orgId: '1' }, { orgId: '2' }] }), /^document\.orgs: holds 2/);
    assert.match(fault({ orgs: [{ orgId: '1', humanUsers: [{ userId: '3', user: { userName: 7 } }] }] }), /humanUsers\[0\]\.user\.userName: must be a string/);
  });
});

describe('user fingerprints', () => {
  const plan = planZitadel({ orgs: [{ orgId: '1', humanUsers: [human('10')] }] });
  const user = plan.users[0];

  it('tell a changed profile from changed credentials', () => {
    const before = userFingerprint(user);
    assert.equal(before.length, 64, 'fits the id map column');
    assert.deepEqual(changedHalves(before, userFingerprint({ ...user, lastName: 'C' }), user), { profile: true, secrets: false });
    assert.deepEqual(changedHalves(before, userFingerprint({ ...user, passwordChangeRequired: true }), user), { profile: false, secrets: true });
    assert.deepEqual(changedHalves(before, before, user), { profile: false, secrets: false });
  });
});
