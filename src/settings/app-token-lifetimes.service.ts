import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { InstanceSettings } from './instance-settings.service.js';
import { checkAppLifetimes } from './settings.rules.js';
import { readAppLifetimesOf, readAppLifetimesOfMany, removeAppLifetimes, writeAppLifetimes } from './settings.store.js';
import type { AppLifetimes } from './settings.store.js';
import { TOKEN_FIELDS } from './settings.values.js';
import type { TokenLifetimes } from './settings.values.js';

/** An application's lifetimes as a body gives them: a number sets one, null gives it back to the instance. */
export type AppLifetimesPatch = { [F in keyof TokenLifetimes]?: number | null };

/** The application a change is made to. */
export interface LifetimesOwner {
  id: string;
  clientId: string;
  orgId: string;
  projectId: string;
}

/**
 * Token lifetimes of an application's own (docs/operations.md, "Settings"): each within 60 s to 90 days and at most the
 * instance's; its tokens take them instead of the instance's.
 */
@Injectable()
export class AppTokenLifetimes {
  constructor(
    private readonly settings: InstanceSettings,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** A 400 naming the field when `patch` breaks a rule (before anything is written). */
  async check(patch: AppLifetimesPatch): Promise<void> {
    checkAppLifetimes(definedNumbers(patch), (await this.settings.get()).tokens);
  }

  /** Several applications' own lifetimes, by application id (none: the instance's apply). */
  async ofApps(appIds: string[]): Promise<Map<string, AppLifetimes>> {
    return readAppLifetimesOfMany(this.uow.manager, appIds);
  }

  /** Applies `patch` inside the caller's transaction, with its event; an unchanged one writes nothing. */
  async setIn(manager: EntityManager, editorUserId: string | null, app: LifetimesOwner, patch: AppLifetimesPatch): Promise<void> {
    const before = await readAppLifetimesOf(manager, app.id);
    const after: AppLifetimes = { ...before };
    for (const field of TOKEN_FIELDS) {
      if (patch[field] === null) delete after[field];
      else if (patch[field] !== undefined) after[field] = patch[field];
    }
    checkAppLifetimes(after, (await this.settings.get()).tokens);
    if (TOKEN_FIELDS.every((field) => before[field] === after[field])) return;
    await writeAppLifetimes(manager, app.id, app.clientId, after);
    await this.events.push(manager, {
      type: 'project.application.changed',
      aggregateType: 'application',
      aggregateId: app.id,
      resourceOwner: app.orgId,
      editorUserId,
      payload: { projectId: app.projectId, clientId: app.clientId, tokens: { before, after } },
    });
    this.uow.afterCommit(manager, () => this.settings.forget());
  }

  /** With the application (its removal). */
  async removeIn(manager: EntityManager, appId: string): Promise<void> {
    await removeAppLifetimes(manager, appId);
    this.uow.afterCommit(manager, () => this.settings.forget());
  }
}

function definedNumbers(patch: AppLifetimesPatch): AppLifetimes {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => typeof value === 'number')) as AppLifetimes;
}
