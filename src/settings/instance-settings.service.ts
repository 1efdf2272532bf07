import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import type { JsonObject } from '../common/database/columns.js';
import type { EntityManager } from 'typeorm';
import { readAppLifetimes, readSettings, writeSettings } from './settings.store.js';
import type { AppLifetimes } from './settings.store.js';
import { checkSettings } from './settings.rules.js';
import { copyOf, DEFAULT_SETTINGS, SECTIONS, TOKEN_FIELDS } from './settings.values.js';
import type { Settings, TokenLifetimes } from './settings.values.js';

/**
 * How long a process answers from what it read: a change made in another process applies within this window
 * (docs/operations.md, "Settings"), as a removed client credential does (src/oidc/adapter/client.store.ts).
 */
export const SETTINGS_CACHE_MS = 1_000;

/** What a room that keeps data under the settings' rules does, in the change's transaction, when they change. */
export type SettingsFollower = (manager: EntityManager, before: Settings, after: Settings) => Promise<void>;

interface Loaded {
  at: number;
  settings: Settings;
  apps: Map<string, AppLifetimes>;
}

/** The instance's settings, read on use: every token, password check and new organization asks here. */
@Injectable()
export class InstanceSettings {
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private epoch = 0;
  private readonly followers: SettingsFollower[] = [];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** The settings, at most SETTINGS_CACHE_MS old (never older than a change this process committed). */
  async get(): Promise<Settings> {
    return copyOf((await this.fresh()).settings);
  }

  /** Makes `lifetimesOf` answer from a read at most SETTINGS_CACHE_MS old. */
  async refresh(): Promise<void> {
    await this.fresh();
  }

  /**
   * For every request of the OIDC provider: `lifetimesOf` answers from the last read at once, and a read older than
   * SETTINGS_CACHE_MS starts a new one for the requests after it; only the first read is waited for. A read that
   * fails or hangs (the database is away) keeps the last one: the request is then answered 503 where it needs the
   * database itself, never held or failed here.
   */
  async refreshWithoutWaiting(): Promise<void> {
    if (this.loaded === undefined) {
      await this.fresh().catch(() => undefined);
      return;
    }
    if (Date.now() - this.loaded.at >= SETTINGS_CACHE_MS) this.fresh().catch(() => undefined);
  }

  /**
   * The token lifetimes of a client, from the last read (`refresh` first): the application's own where it has
   * them, never longer than the instance's; the instance's for everything else.
   */
  lifetimesOf(clientId?: string): TokenLifetimes {
    const loaded = this.loaded ?? { settings: DEFAULT_SETTINGS, apps: new Map<string, AppLifetimes>() };
    const instance = loaded.settings.tokens;
    const own = clientId === undefined ? undefined : loaded.apps.get(clientId);
    if (!own) return { ...instance };
    return Object.fromEntries(TOKEN_FIELDS.map((field) => [field, Math.min(own[field] ?? instance[field], instance[field])])) as unknown as TokenLifetimes;
  }

  /** Calls `follower` in the transaction of every change (the password history prunes what a shorter one drops). */
  follow(follower: SettingsFollower): void {
    this.followers.push(follower);
  }

  /** Applies a partial change (each section partial too); one event holds the settings before and after. */
  change(editorUserId: string | null, patch: { [S in keyof Settings]?: Partial<Settings[S]> }): Promise<Settings> {
    return this.uow.run(async (manager) => {
      const before = await readSettings(manager);
      const after = copyOf(before);
      for (const section of SECTIONS) Object.assign(after[section], definedOnly(patch[section] ?? {}));
      checkSettings(after);
      const changed = await writeSettings(manager, before, after);
      if (changed.length === 0) return after;
      for (const follower of this.followers) await follower(manager, before, after);
      await this.events.push(manager, {
        type: 'instance.settings.changed',
        aggregateType: 'instance',
        aggregateId: 'instance',
        resourceOwner: 'instance',
        editorUserId,
        payload: { changed, before: before as unknown as JsonObject, after: after as unknown as JsonObject },
      });
      // This process answers from the committed settings at once; others within SETTINGS_CACHE_MS.
      this.uow.afterCommit(manager, () => this.forget());
      return after;
    });
  }

  /** Forgets what was read: the next use reads again (after a change of an application's lifetimes too). */
  forget(): void {
    this.loaded = undefined;
    this.loading = undefined;
    this.epoch++;
  }

  private fresh(): Promise<Loaded> {
    if (this.loaded && Date.now() - this.loaded.at < SETTINGS_CACHE_MS) return Promise.resolve(this.loaded);
    this.loading ??= this.read();
    return this.loading;
  }

  /** One read shared by the callers waiting for it; a read begun before a `forget` is never kept. */
  private read(): Promise<Loaded> {
    const epoch = this.epoch;
    const at = Date.now();
    const loading = (async () => {
      const manager = this.uow.manager;
      return { at, settings: await readSettings(manager), apps: await readAppLifetimes(manager) };
    })();
    loading.then(
      (loaded) => {
        if (this.epoch === epoch) this.loaded = loaded;
      },
      () => undefined,
    );
    loading
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      })
      .catch(() => undefined);
    return loading;
  }
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
