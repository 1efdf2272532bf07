import type { EntityManager } from 'typeorm';
import { readRows } from '../common/database/statements.js';
import { copyOf, DEFAULT_SETTINGS, SECTIONS, TOKEN_FIELDS } from './settings.values.js';
import type { Settings, TokenLifetimes } from './settings.values.js';

/**
 * The rows of `instance_settings` (one per changed field, named `section.field`, its value as JSON) and of
 * `application_token_lifetimes` (an application's own lifetimes; null: the instance's). This module owns both
 * tables (docs/architecture.md, "Data").
 */
interface SettingRow {
  name: string;
  value: string;
}

interface AppLifetimeRow {
  app_id: string;
  client_id: string;
  access_token_seconds: number | string | null;
  id_token_seconds: number | string | null;
  refresh_idle_seconds: number | string | null;
  refresh_absolute_seconds: number | string | null;
}

export type AppLifetimes = Partial<TokenLifetimes>;

const APP_COLUMNS: Record<keyof TokenLifetimes, keyof AppLifetimeRow> = {
  accessTokenSeconds: 'access_token_seconds',
  idTokenSeconds: 'id_token_seconds',
  refreshIdleSeconds: 'refresh_idle_seconds',
  refreshAbsoluteSeconds: 'refresh_absolute_seconds',
};

/** The stored settings over the defaults; a row of a field this version does not know is ignored. */
export async function readSettings(manager: EntityManager): Promise<Settings> {
  const settings = copyOf(DEFAULT_SETTINGS);
  for (const row of await readRows<SettingRow>(manager, 'SELECT name, value FROM instance_settings', [])) {
    const [section, field] = row.name.split('.');
    const values = SECTIONS.includes(section as keyof Settings) ? (settings[section as keyof Settings] as unknown as Record<string, unknown>) : undefined;
    if (!values || !(field in values)) continue;
    const value: unknown = JSON.parse(row.value);
    if (typeof value === typeof values[field]) values[field] = value;
  }
  return settings;
}

/** Writes the fields that differ from `before` inside the caller's transaction; answers the names written. */
export async function writeSettings(manager: EntityManager, before: Settings, after: Settings): Promise<string[]> {
  const changed: string[] = [];
  const now = Date.now();
  for (const section of SECTIONS) {
    const was = before[section] as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(after[section])) {
      if (was[field] === value) continue;
      const name = `${section}.${field}`;
      await manager.query('DELETE FROM instance_settings WHERE name = ?', [name]);
      await manager.query('INSERT INTO instance_settings (name, value, changed_at) VALUES (?, ?, ?)', [name, JSON.stringify(value), now]);
      changed.push(name);
    }
  }
  return changed;
}

/** Every application's own lifetimes, by client id (one small table, read whole with the settings). */
export async function readAppLifetimes(manager: EntityManager): Promise<Map<string, AppLifetimes>> {
  const rows = await readRows<AppLifetimeRow>(manager, 'SELECT * FROM application_token_lifetimes', []);
  return new Map(rows.map((row) => [row.client_id, lifetimesOf(row)]));
}

export async function readAppLifetimesOf(manager: EntityManager, appId: string): Promise<AppLifetimes> {
  return (await readAppLifetimesOfMany(manager, [appId])).get(appId) ?? {};
}

/** Several applications' own lifetimes, by application id, in one statement. */
export async function readAppLifetimesOfMany(manager: EntityManager, appIds: string[]): Promise<Map<string, AppLifetimes>> {
  if (appIds.length === 0) return new Map();
  const rows = await readRows<AppLifetimeRow>(
    manager,
    `SELECT * FROM application_token_lifetimes WHERE app_id IN (${appIds.map(() => '?').join(', ')})`,
    appIds,
  );
  return new Map(rows.map((row) => [row.app_id, lifetimesOf(row)]));
}

/** Replaces an application's own lifetimes; none left removes its row. */
export async function writeAppLifetimes(manager: EntityManager, appId: string, clientId: string, lifetimes: AppLifetimes): Promise<void> {
  await removeAppLifetimes(manager, appId);
  if (TOKEN_FIELDS.every((field) => lifetimes[field] === undefined)) return;
  const values = TOKEN_FIELDS.map((field) => lifetimes[field] ?? null);
  await manager.query(
    'INSERT INTO application_token_lifetimes (app_id, client_id, access_token_seconds, id_token_seconds, refresh_idle_seconds, refresh_absolute_seconds, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [appId, clientId, ...values, Date.now()],
  );
}

export async function removeAppLifetimes(manager: EntityManager, appId: string): Promise<void> {
  await manager.query('DELETE FROM application_token_lifetimes WHERE app_id = ?', [appId]);
}

function lifetimesOf(row: AppLifetimeRow): AppLifetimes {
  const lifetimes: AppLifetimes = {};
  for (const field of TOKEN_FIELDS) {
    const value = row[APP_COLUMNS[field]];
    if (value !== null && value !== undefined) lifetimes[field] = Number(value);
  }
  return lifetimes;
}
