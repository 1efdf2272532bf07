import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { dataSourceOptions } from '../../src/common/database/data-source.js';
import { MIGRATIONS } from '../../src/common/database/migrations/index.js';
import { OrgDomains1763800300000 } from '../../src/common/database/migrations/1763800300000-org-domains.js';
import { ENTITIES } from '../../src/entities.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';

/**
 * The upgrade to verified domains (docs/federation.md, "Organization domains"): of the domains IdPs claimed before,
 * another organization's primary domain is dropped from the IdP; any other becomes an unverified domain of the IdP's
 * organization and stays on the IdP; the IdP's own primary domain stays as it was.
 */
describe('upgrade: the home-realm domains IdPs claimed before domains were verified', () => {
  let database: TestDatabase;
  let dataDir: string;
  let db: DataSource;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-domains-upgrade-'));
    database = await createTestDatabase();
    const config = loadConfig({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
    const options = dataSourceOptions(config.database, ENTITIES);
    // The previous version's schema: every migration but this one.
    const previous = await new DataSource({ ...options, migrations: MIGRATIONS.filter((m) => m !== OrgDomains1763800300000) }).initialize();
    await previous.runMigrations({ transaction: 'each' });
    const now = Date.now();
    for (const [id, domain] of [
      ['org-a', 'a.localhost'],
      ['org-b', 'b.localhost'],
    ]) {
      await previous.query('INSERT INTO organizations (id, name, primary_domain, created_at, changed_at) VALUES (?, ?, ?, ?, ?)', [id, id, domain, now, now]);
    }
    await previous.query(
      "INSERT INTO identity_providers (id, org_id, type, name, settings, client_secret, created_at, changed_at) VALUES ('idp-b', 'org-b', 'oidc', 'B', '{}', NULL, ?, ?)",
      [now, now],
    );
    for (const domain of ['a.localhost', 'b.localhost', 'legacy.example'])
      await previous.query("INSERT INTO idp_domains (domain, idp_id) VALUES (?, 'idp-b')", [domain]);
    await previous.destroy();
    db = await new DataSource({ ...options, migrations: MIGRATIONS }).initialize();
    assert.deepEqual(
      (await db.runMigrations({ transaction: 'each' })).map((m) => m.name),
      [OrgDomains1763800300000.name],
    );
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('drops the claim on another organization’s primary domain, keeps the own primary, and makes the rest unverified domains', async () => {
    const claims: { domain: string }[] = await db.query("SELECT domain FROM idp_domains WHERE idp_id = 'idp-b' ORDER BY domain");
    assert.deepEqual(
      claims.map((c) => c.domain),
      ['b.localhost', 'legacy.example'],
    );
    const domains: { domain: string; org_id: string; verified_at: unknown; challenge: string }[] = await db.query(
      'SELECT domain, org_id, verified_at, challenge FROM org_domains ORDER BY domain',
    );
    assert.deepEqual(
      domains.map((d) => [d.domain, d.org_id, d.verified_at]),
      [['legacy.example', 'org-b', null]],
    );
    assert.match(domains[0].challenge, /^[A-Za-z0-9_-]{43}$/);
  });
});
