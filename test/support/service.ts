import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { configureApp } from '../../src/app.factory.js';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/common/config/config.js';
import type { AppConfig } from '../../src/common/config/config.js';
import { migrate } from '../../src/common/database/migrate.js';
import { createTestDatabase } from './database.js';
import { layDownSchema } from './schema-template.js';
import { createClient } from './http.js';
import type { ApiClient } from './http.js';

export interface TestService {
  url: string;
  config: AppConfig;
  dataDir: string;
  /** The bootstrap admin client's personal access token, read from `$DATA_DIR/admin.pat`. */
  adminToken: string;
  api: ApiClient;
  /** The service's own data source, to read state back in assertions. */
  dataSource: DataSource;
  app: NestExpressApplication;
  close(): Promise<void>;
}

/**
 * Starts the whole application in-process through @nestjs/testing, exactly as main.ts configures it,
 * listening on a free loopback port, on a fresh database (SQLite, or MariaDB with TEST_DATABASE_URL).
 */
export async function startService(env: Record<string, string> = {}): Promise<TestService> {
  // The port is free when chosen and taken later, after the schema and the modules: another process (or an outgoing
  // connection's ephemeral port) may take it in between. Then the whole start is made again on another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
    }
  }
}

async function startOnce(env: Record<string, string>): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-test-'));
  const database = await createTestDatabase();
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BCRYPT_COST: '4',
    // The address the tests reach is the public one: the service builds every absolute URL from
    // PUBLIC_URL, never from the request's Host.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...env,
    // `{port}` in a given PUBLIC_URL is the port chosen here (e.g. http://localhost:{port}: WebAuthn needs a host name).
    ...(env.PUBLIC_URL ? { PUBLIC_URL: env.PUBLIC_URL.replace('{port}', String(port)) } : {}),
  });
  // The migrated template first; migrate() then finds nothing to apply (test/support/schema-template.ts).
  await layDownSchema(config.database);
  await migrate(config.database);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new ExpressAdapter(), { bodyParser: false, bufferLogs: true });
  await configureApp(app, config);
  try {
    await app.listen(port, '127.0.0.1');
  } catch (error) {
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    config,
    // A given DATA_DIR is another service's (a second process of one instance): its files, never removed here.
    dataDir: config.dataDir,
    adminToken: readFileSync(join(config.dataDir, 'admin.pat'), 'utf8').trim(),
    api: createClient(url),
    dataSource: app.get(DataSource),
    app,
    close: async () => {
      await app.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
