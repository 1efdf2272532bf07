import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';

/** OIDC requests bypass Express, yet operators get the same access-log line for them as for the API. */
describe('access log of OIDC requests', () => {
  let dataDir: string;
  let database: TestDatabase;
  let svc: ServiceProcess;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-oidc-log-'));
    database = await createTestDatabase();
    svc = await spawnService({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
  });
  after(async () => {
    await svc?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs method, path without query, status and the request id; never the query or the credentials', async () => {
    const discovery = await fetch(`${svc.url}/.well-known/openid-configuration?probe=query-value-secret`, { headers: { 'x-request-id': 'oidc-trace-1' } });
    assert.equal(discovery.status, 200);
    assert.equal(discovery.headers.get('x-request-id'), 'oidc-trace-1');
    const token = await fetch(`${svc.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('nobody:basic-secret-value').toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    assert.equal(token.status, 401);
    assert.match(token.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);

    const lines = await linesFor(svc, ['/.well-known/openid-configuration', '/oauth/v2/token']);
    const discoveryLine = lines.find((l) => l.req.path === '/.well-known/openid-configuration')!;
    assert.equal(discoveryLine.req.id, 'oidc-trace-1');
    assert.equal(discoveryLine.req.method, 'GET');
    assert.equal(discoveryLine.res.statusCode, 200);
    const tokenLine = lines.find((l) => l.req.path === '/oauth/v2/token')!;
    assert.equal(tokenLine.res.statusCode, 401);
    assert.equal(tokenLine.level, 40, 'client errors are logged as warnings');
    const output = svc.output();
    assert.ok(!output.includes('query-value-secret'), 'query strings are never logged');
    assert.ok(!output.includes(Buffer.from('nobody:basic-secret-value').toString('base64')), 'credentials are never logged');
  });
});

interface AccessLine {
  level: number;
  req: { id: string; method: string; path: string };
  res: { statusCode: number };
}

/** The access-log lines of the given paths, once all of them were written (lines follow the response). */
async function linesFor(svc: ServiceProcess, paths: string[]): Promise<AccessLine[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const lines = svc
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Partial<AccessLine>)
      .filter((line): line is AccessLine => typeof line.req?.path === 'string' && line.res !== undefined);
    if (paths.every((path) => lines.some((l) => l.req.path === path)) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
