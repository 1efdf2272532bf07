import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { Encryptor } from '../../src/common/crypto/encryptor.js';
import { loadMasterKey } from '../../src/common/crypto/master-key.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { MIGRATIONS } from '../../src/common/database/migrations/index.js';
import { SigningKeySchedule1763701470000 } from '../../src/common/database/migrations/1763701470000-signing-key-schedule.js';
import { newKeyPair } from '../../src/oidc/keys/key-pair.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { clientCredentialsToken } from './support/cluster-client.js';
import { ENTITIES } from '../../src/entities.js';

const DAY = 24 * 3600 * 1000;

/** A database of the version before scheduled rotation keeps signing with its key after the upgrade. */
describe('upgrade: the signing key of a previous version', () => {
  let svc: ServiceProcess;
  let database: TestDatabase;
  let dataDir: string;
  let kid: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-upgrade-'));
    database = await createTestDatabase();
    const env = {
      DATA_DIR: dataDir,
      MASTER_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'error',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    };
    const config = loadConfig(env);
    // The previous version's schema, and the key it had created ten days before.
    const previous = new DataSource({
      ...dataSourceOptions(config.database, ENTITIES),
      migrations: MIGRATIONS.filter((m) => m !== SigningKeySchedule1763701470000),
    });
    await previous.initialize();
    try {
      await previous.runMigrations({ transaction: 'each' });
      const { publicJwk, privateJwk } = await newKeyPair('RS256');
      kid = privateJwk.kid;
      const sealed = new Encryptor(loadMasterKey(config)).encrypt(JSON.stringify(privateJwk));
      await previous.query(
        'INSERT INTO signing_keys (id, alg, public_jwk, private_jwk_encrypted, created_at, retired_at, publish_until) VALUES (?, ?, ?, ?, ?, NULL, NULL)',
        [kid, 'RS256', JSON.stringify(publicJwk), sealed, Date.now() - 10 * DAY],
      );
    } finally {
      await previous.destroy();
    }
    svc = await spawnService(env);
  });
  after(async () => {
    await svc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs with the existing RS256 key, publishes only it, and its tokens verify', async () => {
    const api = createClient(svc.url);
    const jwks = (await (await fetch(`${svc.url}/oauth/v2/keys`)).json()) as { keys: { kid: string; alg: string }[] };
    assert.deepEqual(
      jwks.keys.map((k) => [k.kid, k.alg]),
      [[kid, 'RS256']],
    );
    const admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const org = await api('POST', '/admin/v1/orgs', { token: admin, body: { name: 'upgraded' } });
    const user = await api('POST', `/management/v1/orgs/${org.body.id}/users/machine`, {
      token: admin,
      body: { userName: 'm', name: 'm', accessTokenType: 'jwt' },
    });
    const machine = (await api('POST', `/management/v1/orgs/${org.body.id}/users/${user.body.userId}/secret`, { token: admin, body: {} })).body;
    const { protectedHeader } = await jwtVerify(await clientCredentialsToken(svc.url, machine), createRemoteJWKSet(new URL('/oauth/v2/keys', svc.url)));
    assert.deepEqual([protectedHeader.kid, protectedHeader.alg], [kid, 'RS256']);
  });
});
