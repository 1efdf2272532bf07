/**
 * A second independent SCIM 2.0 service for the provisioning tests (docs/provisioning.md): Better Auth with its SCIM
 * plugin, as its documentation sets it up — an in-memory SQLite database (better-sqlite3), its own migrations, one
 * static connection with a bearer token, served by its Node handler. It caps a group at 1,000 direct members and
 * refuses a `remove` whose filter joins members with `or`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scim } from '@better-auth/scim';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';

export interface BetterAuthTarget {
  baseUrl: string;
  token: string;
  /** A SCIM request to it, as the connection. */
  scim(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startBetterAuthTarget(): Promise<BetterAuthTarget> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = randomBytes(16).toString('hex');
  const database = new Database(':memory:');
  const auth = betterAuth({
    database,
    secret: randomBytes(32).toString('hex'),
    baseURL: url,
    telemetry: { enabled: false },
    logger: { disabled: true },
    plugins: [scim({ connections: [{ id: 'portcullis', credentials: [{ type: 'bearer', id: 'tests', token }] }] })],
  });
  await (await getMigrations(auth.options)).runMigrations();
  server.on('request', toNodeHandler(auth));
  const baseUrl = `${url}/api/auth/scim/v2`;
  return {
    baseUrl,
    token,
    scim: async (method, path, body) => {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      database.close();
    },
  };
}
