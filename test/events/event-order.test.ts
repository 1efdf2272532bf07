import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { createCaller, createOrg } from '../support/fixtures.js';
import { PATCH_OP, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';

/** How long the writers write; the reader pages all along. */
const WRITING_MS = Number(process.env.EVENT_ORDER_WRITING_MS ?? 8_000);
/** Concurrent writers per process and kind (SCIM creates and patches, management API creates). */
const WRITERS = 3;

/**
 * docs/product-rules.md, "Import and event search": a reader paging event search with `sequence` sees every event exactly once,
 * also under concurrent writers on two processes over one database. Positions taken by a transaction
 * that commits after a later position is visible would be skipped by the reader; this test is the
 * proof that none is.
 */
describe('events: a reader paging with sequence sees every event once, in order', () => {
  let setup: ProcessSetup;
  let processes: ServiceProcess[];

  before(async () => {
    setup = await processSetup();
    processes = [await setup.spawn(), await setup.spawn()];
  });
  after(() => setup?.cleanup());

  it('under concurrent SCIM and management writers on two processes', async () => {
    const admin = setup.adminToken();
    const services = processes.map((p) => remoteService(p.url, admin));
    const tenant = await scimTenant(services[0]);
    const org = await createOrg(services[0]);
    const manager = await createCaller(services[0], org.id, { org: ['ORG_USER_MANAGER'] });

    let writing = true;
    let written = 0;
    const writers: Promise<void>[] = [];
    for (const [p, service] of services.entries()) {
      const onProcess: ScimTenant = {
        ...tenant,
        scim: (method, path, options = {}) =>
          service.api(method, `${tenant.base}${path}`, {
            token: tenant.token,
            ...options,
            headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json', ...options.headers },
          }),
      };
      for (let w = 0; w < WRITERS; w++) {
        writers.push(
          (async () => {
            for (let i = 0; writing; i++) {
              const created = await onProcess.scim('POST', '/Users', { body: userBody(`scim-${p}-${w}-${i}`) });
              assert.equal(created.status, 201, created.text);
              const patched = await onProcess.scim('PATCH', `/Users/${created.body.id}`, {
                body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: `Patched ${i}` }] },
              });
              assert.ok(patched.status === 200 || patched.status === 204, patched.text);
              written += 2;
            }
          })(),
        );
        writers.push(
          (async () => {
            for (let i = 0; writing; i++) {
              const res = await service.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
                token: manager.token,
                body: { userName: `mgmt-${p}-${w}-${i}`, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: `m${p}${w}${i}@example.com` } },
              });
              assert.equal(res.status, 201, res.text);
              written += 1;
            }
          })(),
        );
      }
    }

    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    const page = async (i: number) => {
      const body: Record<string, unknown> = { asc: true, limit: 50, ...(cursor ? { sequence: cursor } : {}) };
      const res = await createClient(processes[i % 2].url)('POST', '/admin/v1/events/_search', { token: admin, body });
      assert.equal(res.status, 200, res.text);
      pages++;
      for (const event of res.body.events as { sequence: string }[]) seen.push(Number(event.sequence));
      if (res.body.events.length > 0) cursor = res.body.events.at(-1).sequence;
      return res.body.events.length as number;
    };
    const reader = (async () => {
      for (let i = 0; writing; i++) await page(i);
    })();

    const stop = new Promise((resolve) => setTimeout(resolve, WRITING_MS));
    try {
      // A writer or the reader that fails ends the test at once, and stops the others.
      await Promise.race([stop, ...writers, reader]);
    } finally {
      writing = false;
    }
    await Promise.all(writers);
    await reader;
    // Everything is committed now: the reader catches up with the table.
    for (let i = 0; (await page(i)) > 0; i++);

    const stored = await setup.inspect(async (dataSource) =>
      (await dataSource.query('SELECT position FROM events ORDER BY position')).map((row: { position: number | string }) => Number(row.position)),
    );
    assert.ok(written > 50, `only ${written} writes`);
    const missed = stored.filter((position: number) => !new Set(seen).has(position));
    assert.deepEqual({ missed: missed.slice(0, 20), count: seen.length }, { missed: [], count: stored.length }, `${written} writes, ${pages} pages`);
    assert.deepEqual(seen, stored);
  });
});
