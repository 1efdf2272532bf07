import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { createTestDatabase } from './database.js';
import type { TestDatabase } from './database.js';
import { createClient } from './http.js';
import { spawnService } from './process.js';
import type { ServiceProcess } from './process.js';
import { freePort } from './service.js';
import type { TestService } from './service.js';

/**
 * Another Portcullis instance in a process of its own, with its own database and master key, started before the
 * suite's tests and stopped (by its PID) after them: an upstream, a transmitter, an enterprise IdP.
 */
export function useOtherInstance(env: Record<string, string> = {}): TestService {
  const other = {} as TestService;
  let child: ServiceProcess | undefined;
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-other-'));
    database = await createTestDatabase();
    const port = await freePort();
    child = await spawnService(
      { DATA_DIR: dataDir, LOG_LEVEL: 'error', PUBLIC_URL: `http://127.0.0.1:${port}`, ...(database.url ? { DATABASE_URL: database.url } : {}), ...env },
      { port },
    );
    Object.assign(other, {
      url: child.url,
      config: { publicUrl: child.url },
      adminToken: readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(),
      api: createClient(child.url),
    });
  });
  after(async () => {
    await child?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return other;
}
