import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SecretHasher } from '../../src/common/crypto/secret-hasher.js';
import { PasswordHasher } from '../../src/common/crypto/password-hasher.js';
import { BootstrapService, CONSOLE_CLIENT_ID } from '../../src/users/bootstrap.service.js';
import { ApplicationEntity } from '../../src/users/entities/application.entity.js';
import { MembershipEntity } from '../../src/users/entities/membership.entity.js';
import { OrganizationEntity } from '../../src/users/entities/organization.entity.js';
import { PersonalAccessTokenEntity } from '../../src/users/entities/personal-access-token.entity.js';
import { UserEntity } from '../../src/users/entities/user.entity.js';
import { ADMIN_PASSWORD, useDomain } from './support.js';

/** First start on an empty database (docs/product-rules.md, "Running it"). */
describe('domain: bootstrap', () => {
  const domain = useDomain();

  it('creates organization default, the admin and the admin client, both IAM_OWNER', async () => {
    const users = await domain.dataSource.getRepository(UserEntity).findBy({ orgId: domain.defaultOrgId });
    assert.deepEqual(users.map((u) => [u.userName, u.type]).sort(), [
      ['admin', 'human'],
      ['admin-client', 'machine'],
    ]);
    const owners = await domain.dataSource.getRepository(MembershipEntity).findBy({ scopeType: 'instance' });
    assert.deepEqual(
      owners.map((m) => m.roles),
      ['IAM_OWNER', 'IAM_OWNER'],
    );
    const admin = users.find((u) => u.userName === 'admin')!;
    assert.ok(await domain.get(PasswordHasher).verify(ADMIN_PASSWORD, admin.passwordHash!));
  });

  it("writes the admin client's token to admin.pat (owner-only), matching the stored hash", async () => {
    const file = join(domain.config.dataDir, 'admin.pat');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const token = readFileSync(file, 'utf8').trim();
    const [row] = await domain.dataSource.getRepository(PersonalAccessTokenEntity).find();
    assert.ok(domain.get(SecretHasher).matches(token, row.tokenHash));
    // The password was given, so none is generated or written.
    assert.equal(existsSync(join(domain.config.dataDir, 'admin.password')), false);
  });

  it('creates the console application', async () => {
    const app = await domain.dataSource.getRepository(ApplicationEntity).findOneByOrFail({ clientId: CONSOLE_CLIENT_ID });
    assert.ok(app);
  });

  it('is idempotent: a second run changes nothing', async () => {
    const count = async () => [
      await domain.dataSource.getRepository(OrganizationEntity).count(),
      await domain.dataSource.getRepository(UserEntity).count(),
      await domain.dataSource.getRepository(ApplicationEntity).count(),
      Number((await domain.dataSource.query('SELECT COUNT(*) AS n FROM events'))[0].n),
    ];
    const before = await count();
    await domain.get(BootstrapService).bootstrap();
    assert.deepEqual(await count(), before);
  });

  it('a console registered under another PUBLIC_URL gains the current URIs at start-up and keeps the others', async () => {
    const apps = domain.dataSource.getRepository(ApplicationEntity);
    const current = await apps.findOneByOrFail({ clientId: CONSOLE_CLIENT_ID });
    await apps.update({ id: current.id }, { redirectUris: ['https://old.example/console/callback'], postLogoutRedirectUris: ['https://old.example/console/'] });
    await domain.get(BootstrapService).bootstrap();
    const moved = await apps.findOneByOrFail({ clientId: CONSOLE_CLIENT_ID });
    assert.deepEqual(moved.redirectUris, ['https://old.example/console/callback', ...current.redirectUris]);
    assert.deepEqual(moved.postLogoutRedirectUris, ['https://old.example/console/', ...current.postLogoutRedirectUris]);
    const [changed] = await domain.dataSource.query(`SELECT editor_user_id FROM events WHERE type = 'project.application.changed' AND aggregate_id = ?`, [
      current.id,
    ]);
    assert.equal(changed?.editor_user_id, null, 'one event, by the system');
  });
});
