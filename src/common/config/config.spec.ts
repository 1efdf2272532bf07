import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, redactUrl } from './config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.equal(config.dataDir, resolve('./data'));
    assert.deepEqual(config.database, { type: 'sqlite', path: resolve('./data/portcullis.sqlite'), busyTimeoutMs: 5000, checkpointIdleMs: 30_000 });
    assert.equal(config.workers, 1);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.instanceDomain, 'localhost');
    assert.equal(config.masterKey, undefined);
    assert.deepEqual(config.management, { host: '127.0.0.1', port: 9000 });
    assert.equal(config.signingAlg, 'RS256');
  });

  it('reads TRUSTED_PROXIES as a list and names a value that is no address, range or keyword', () => {
    assert.deepEqual(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, loopback ,192.0.2.7' }).trustedProxies, ['10.0.0.0/8', 'loopback', '192.0.2.7']);
    assert.deepEqual(loadConfig({}).trustedProxies, []);
    assert.throws(
      () => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.example' }),
      (error: unknown) => error instanceof ConfigError && /^TRUSTED_PROXIES must list IP addresses, CIDR ranges/.test(error.problems[0]),
    );
  });

  it('refuses a management listener on the public port', () => {
    assert.throws(
      () => loadConfig({ PORT: '9000' }),
      (error: unknown) => error instanceof ConfigError && /MANAGEMENT_PORT must differ from PORT/.test(error.message),
    );
    assert.equal(loadConfig({ PORT: '9000', MANAGEMENT_PORT: '9001' }).management.port, 9001);
  });

  it('accepts each signing algorithm by its JWS name and refuses anything else with the allowed list', () => {
    for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) assert.equal(loadConfig({ SIGNING_ALG: alg }).signingAlg, alg);
    for (const wrong of ['es256', 'HS256', 'none', 'Ed25519']) {
      assert.throws(
        () => loadConfig({ SIGNING_ALG: wrong }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.deepEqual(error.problems, [`SIGNING_ALG must be one of RS256, ES256, EdDSA, got "${wrong}"`]);
          return true;
        },
      );
    }
  });

  it('derives PUBLIC_URL and the SQLite path from PORT and DATA_DIR', () => {
    const config = loadConfig({ PORT: '9100', DATA_DIR: '/tmp/pc' });
    assert.equal(config.publicUrl, 'http://localhost:9100');
    assert.deepEqual(config.database, { type: 'sqlite', path: '/tmp/pc/portcullis.sqlite', busyTimeoutMs: 5000, checkpointIdleMs: 30_000 });
  });

  it('accepts a MySQL/MariaDB URL and a trailing slash on PUBLIC_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'mariadb://u:p@db:3306/portcullis', PUBLIC_URL: 'https://id.example.com/' });
    assert.deepEqual(config.database, { type: 'mysql', url: 'mysql://u:p@db:3306/portcullis', nodes: [{ host: 'db', port: 3306 }] });
    assert.equal(config.publicUrl, 'https://id.example.com');
  });

  it('accepts a list of hosts (Galera nodes); the URL keeps the first, with the path and parameters', () => {
    const config = loadConfig({ DATABASE_URL: 'mysql://u:p%40ss@db1:3307,db2,[::1]:3309/portcullis?connectionLimit=4' });
    assert.deepEqual(config.database, {
      type: 'mysql',
      url: 'mysql://u:p%40ss@db1:3307/portcullis?connectionLimit=4',
      nodes: [
        { host: 'db1', port: 3307 },
        { host: 'db2', port: 3306 },
        { host: '::1', port: 3309 },
      ],
    });
  });

  it('refuses a host list with an empty or malformed entry, without printing the password', () => {
    for (const url of ['mysql://u:hunter2@db1,,db2/portcullis', 'mysql://u:hunter2@db1,db2:port/portcullis', 'mysql://u:hunter2@db1,/portcullis']) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: url }),
        (error: unknown) => error instanceof ConfigError && /list of hosts/.test(error.message) && !/hunter2/.test(error.message),
        url,
      );
    }
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({
        PORT: '70000',
        WORKERS: 'two',
        LOG_LEVEL: 'chatty',
        DATABASE_URL: 'mysql://root@localhost',
        MASTER_KEY: 'c2hvcnQ=',
        PUBLIC_URL: 'ftp://x',
        INSTANCE_DOMAIN: 'not a domain',
        BCRYPT_COST: '3',
      });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      const names = error.problems.map((p) => p.split(' ')[0]);
      assert.deepEqual(names.sort(), ['BCRYPT_COST', 'DATABASE_URL', 'INSTANCE_DOMAIN', 'LOG_LEVEL', 'MASTER_KEY', 'PORT', 'PUBLIC_URL', 'WORKERS']);
    }
  });

  it('never prints database credentials in a problem', () => {
    assert.equal(redactUrl('postgres://admin:hunter2@db/x'), 'postgres://***@db/x');
    try {
      loadConfig({ DATABASE_URL: 'postgres://admin:hunter2@db/x' });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.doesNotMatch(error.message, /hunter2/);
    }
  });

  it('webhook settings: defaults, and refusals of a non-boolean switch and a lease shorter than the delivery timeout allows', () => {
    assert.deepEqual(loadConfig({}).webhooks, { allowPrivateNetworks: false, retryBaseMs: 5000, retryWindowMs: 86_400_000, leaseMs: 30_000 });
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).webhooks.allowPrivateNetworks, true);
    try {
      loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes', WEBHOOK_LEASE_MS: '5000' });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.problems.map((p) => p.split(' ')[0]).sort(), ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'WEBHOOK_LEASE_MS']);
    }
  });

  it('provisioning settings: defaults, and a refusal of a lease shorter than a request allows', () => {
    assert.deepEqual(loadConfig({}).provisioning, { retryBaseMs: 5000, retryWindowMs: 86_400_000, leaseMs: 30_000, membersPerPatch: 100 });
    assert.equal(loadConfig({ PROVISIONING_RETRY_BASE_MS: '50' }).provisioning.retryBaseMs, 50);
    try {
      loadConfig({ PROVISIONING_LEASE_MS: '5000' });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(
        error.problems.map((p) => p.split(' ')[0]),
        ['PROVISIONING_LEASE_MS'],
      );
    }
  });

  it('key poll: every 5 s by default, shortened for tests, refused below 100 ms and above a minute', () => {
    assert.equal(loadConfig({}).keyPollMs, 5000);
    assert.equal(loadConfig({ KEY_POLL_MS: '200' }).keyPollMs, 200);
    for (const value of ['99', '60001', 'often']) {
      assert.throws(
        () => loadConfig({ KEY_POLL_MS: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.map((p) => p.split(' ')[0]).join() === 'KEY_POLL_MS',
        value,
      );
    }
  });

  it('SAML logout poll: every 5 s by default, shortened for tests, refused below 10 ms and above a minute', () => {
    assert.equal(loadConfig({}).samlLogoutPollMs, 5000);
    assert.equal(loadConfig({ SAML_LOGOUT_POLL_MS: '200' }).samlLogoutPollMs, 200);
    for (const value of ['9', '60001', 'often']) {
      assert.throws(
        () => loadConfig({ SAML_LOGOUT_POLL_MS: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.map((p) => p.split(' ')[0]).join() === 'SAML_LOGOUT_POLL_MS',
        value,
      );
    }
  });

  it('checkpoint thread idle time: 30 s by default, on SQLite only, refused below a second and above a day', () => {
    const sqlite = (env: Record<string, string>) => {
      const { database } = loadConfig(env);
      assert.equal(database.type, 'sqlite');
      return database.checkpointIdleMs;
    };
    assert.equal(sqlite({}), 30_000);
    assert.equal(sqlite({ SQLITE_CHECKPOINT_IDLE_MS: '1000' }), 1000);
    assert.equal('checkpointIdleMs' in loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1:3306/portcullis' }).database, false);
    for (const value of ['999', '86400001', 'soon']) {
      assert.throws(
        () => loadConfig({ SQLITE_CHECKPOINT_IDLE_MS: value }),
        (error: unknown) => error instanceof ConfigError && error.problems.map((p) => p.split(' ')[0]).join() === 'SQLITE_CHECKPOINT_IDLE_MS',
        value,
      );
    }
  });
});
