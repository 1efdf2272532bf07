import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { SecretHasher } from '../../src/common/crypto/secret-hasher.js';
import { ErrorCode } from '../../src/common/errors/domain-error.js';
import { CredentialsService } from '../../src/users/credentials.service.js';
import { MachineSecretEntity } from '../../src/users/entities/machine-secret.entity.js';
import { PersonalAccessTokenEntity } from '../../src/users/entities/personal-access-token.entity.js';
import { PublicKeyEntity } from '../../src/users/entities/public-key.entity.js';
import { UsersService } from '../../src/users/users.service.js';
import { useDomain } from './support.js';

/** Machine users' credentials: stored hashed (secrets, tokens) or public (keys), each with its event. */
describe('domain: machine credentials', () => {
  const domain = useDomain();
  let n = 0;
  const newMachine = () => domain.get(UsersService).createMachine(null, domain.defaultOrgId, { userName: `machine-${++n}`, name: `Machine ${n}` });

  it('replaces the client secret, storing only its hash', async () => {
    const machine = await newMachine();
    const credentials = domain.get(CredentialsService);
    const first = await credentials.setMachineSecret(domain.adminId, domain.defaultOrgId, machine.id);
    const second = await credentials.setMachineSecret(domain.adminId, domain.defaultOrgId, machine.id);
    assert.equal(second.clientId, machine.id);
    const rows = await domain.dataSource.getRepository(MachineSecretEntity).findBy({ userId: machine.id });
    assert.equal(rows.length, 1);
    const hasher = domain.get(SecretHasher);
    assert.ok(hasher.matches(second.clientSecret, rows[0].secretHash));
    assert.ok(!hasher.matches(first.clientSecret, rows[0].secretHash));
    assert.deepEqual(
      (await domain.eventsOf(machine.id)).map((e) => e.type),
      ['user.machine.added', 'user.machine.secret.set', 'user.machine.secret.set'],
    );
  });

  it('adds a key whose stored public half matches the returned private key', async () => {
    const machine = await newMachine();
    const { keyId, privateKeyPem } = await domain.get(CredentialsService).addMachineKey(null, domain.defaultOrgId, machine.id, null);
    const row = await domain.dataSource.getRepository(PublicKeyEntity).findOneByOrFail({ id: keyId });
    assert.equal(row.ownerId, machine.id);
    const derived = createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' });
    assert.equal(String(derived).trim(), row.publicKey.trim());
  });

  it('adds a personal access token, stored hashed with its expiry', async () => {
    const machine = await newMachine();
    const expiresAt = new Date(Date.now() + 86_400_000);
    const { tokenId, token } = await domain.get(CredentialsService).addPersonalAccessToken(null, domain.defaultOrgId, machine.id, expiresAt);
    const row = await domain.dataSource.getRepository(PersonalAccessTokenEntity).findOneByOrFail({ id: tokenId });
    assert.ok(domain.get(SecretHasher).matches(token, row.tokenHash));
    assert.equal(Math.floor(new Date(row.expiresAt!).getTime() / 1000), Math.floor(expiresAt.getTime() / 1000));
    const [event] = (await domain.eventsOf(machine.id)).filter((e) => e.type === 'user.personal.token.added');
    assert.equal(event.payload.tokenId, tokenId);
  });

  it('refuses credentials for humans and expiry dates in the past', async () => {
    const human = await domain
      .get(UsersService)
      .createHuman(null, domain.defaultOrgId, { userName: 'not-a-machine', firstName: 'N', lastName: 'M', email: 'n@example.test' });
    const credentials = domain.get(CredentialsService);
    await assert.rejects(
      credentials.setMachineSecret(null, domain.defaultOrgId, human.id),
      (error: { code?: string }) => error.code === ErrorCode.FailedPrecondition,
    );
    const machine = await newMachine();
    await assert.rejects(
      credentials.addPersonalAccessToken(null, domain.defaultOrgId, machine.id, new Date(Date.now() - 1000)),
      (error: { code?: string }) => error.code === ErrorCode.InvalidArgument,
    );
    assert.equal(await domain.dataSource.getRepository(PersonalAccessTokenEntity).countBy({ userId: machine.id }), 0);
  });
});
