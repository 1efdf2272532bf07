import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useService } from '../support/fixtures.js';

describe('platform: health, OpenAPI, request ids, database settings', () => {
  const svc = useService();

  it('GET /healthz answers 200 without a token', async () => {
    const res = await svc.api('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
  });

  it('serves Swagger UI at /docs and the OpenAPI document at /docs-json, covering the API contract', async () => {
    const ui = await svc.api('GET', '/docs', { headers: { accept: 'text/html' } });
    assert.equal(ui.status, 200);
    assert.match(ui.text, /swagger-ui/i);
    const doc = await svc.api('GET', '/docs-json');
    assert.equal(doc.status, 200);
    assert.match(doc.body.openapi, /^3\./);
    for (const path of [
      '/admin/v1/orgs',
      '/admin/v1/members/{userId}',
      '/admin/v1/features',
      '/admin/v1/events/_search',
      '/management/v1/orgs/{orgId}/projects',
      '/management/v1/orgs/{orgId}/projects/{projectId}/apps/oidc',
      '/management/v1/orgs/{orgId}/projects/{projectId}/apps/api',
      '/management/v1/orgs/{orgId}/projects/{projectId}/apps/{appId}/keys',
      '/management/v1/orgs/{orgId}/users/human',
      '/management/v1/orgs/{orgId}/users/machine',
      '/management/v1/orgs/{orgId}/users/{userId}/secret',
      '/management/v1/orgs/{orgId}/users/{userId}/keys',
      '/management/v1/orgs/{orgId}/users/{userId}/pats',
      '/management/v1/orgs/{orgId}/members/{userId}',
    ]) {
      assert.ok(doc.body.paths[path], `${path} is documented`);
    }
    const human = doc.body.components.schemas.CreateHumanUserDto;
    assert.deepEqual(human.required.sort(), ['email', 'profile', 'userName']);
  });

  it("answers with the caller's X-Request-Id, or a new one", async () => {
    const given = await svc.api('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc-123' } });
    assert.equal(given.headers.get('x-request-id'), 'trace-abc-123');
    const fresh = await svc.api('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(given.headers.get('x-powered-by'), null);
  });

  it('answers 404 in the API error shape for unknown routes', async () => {
    const res = await svc.api('GET', '/admin/v1/nothing-here', { token: svc.adminToken });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 404);
  });

  it('runs SQLite in WAL mode with synchronous=NORMAL and a busy timeout', async (t) => {
    if (svc.config.database.type !== 'sqlite') return t.skip('MySQL/MariaDB run');
    const [journal] = await svc.dataSource.query('PRAGMA journal_mode');
    const [sync] = await svc.dataSource.query('PRAGMA synchronous');
    const [busy] = await svc.dataSource.query('PRAGMA busy_timeout');
    assert.equal(journal.journal_mode, 'wal');
    assert.equal(Number(sync.synchronous), 1, 'NORMAL');
    assert.ok(Number(busy.timeout ?? Object.values(busy)[0]) >= 5000);
  });
});
