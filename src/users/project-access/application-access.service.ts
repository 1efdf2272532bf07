import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { ApplicationAccessMode } from '../entities/application.entity.js';
import { enterableApps, grantsReaching, hasGrantIn } from './grant.queries.js';
import { sortedByCodePoint } from './project-access.rules.js';

/** An application the user may enter, with the link of the user's page of applications. */
export interface EnterableApp {
  appId: string;
  name: string;
  kind: 'oidc' | 'saml';
  clientId: string;
  projectId: string;
  homeUrl: string;
}

/**
 * Who may enter which application, and the roles it learns (docs/product-rules.md, "Application access"), read on
 * use from the committed grants: every door asks here (or, for a resource indicator's API application, asks
 * apiResourceAdmitting, the same rule in one statement), so a removed grant shuts them all at once. Says nothing about
 * machine users or `client_credentials`, which the doors let through without asking.
 */
@Injectable()
export class ApplicationAccess {
  constructor(private readonly uow: UnitOfWork) {}

  /** True for `access: "everyone"`; for `granted`, whether a grant of the project reaches the user (its own or a group's, roles or none). */
  async mayEnter(app: { projectId: string; access: ApplicationAccessMode }, userId: string): Promise<boolean> {
    if (app.access !== 'granted') return true;
    return hasGrantIn(this.uow.manager, app.projectId, userId);
  }

  /** The role keys the user holds in the project through its grants and its groups' grants, distinct, sorted by code point. */
  async rolesIn(projectId: string, userId: string): Promise<string[]> {
    const grants = await grantsReaching(this.uow.manager, userId, projectId);
    return sortedByCodePoint(new Set(grants.flatMap((g) => g.roles)));
  }

  /** The organization's OIDC and SAML applications with a `homeUrl` that the user may enter, ordered by name. */
  async appsFor(userId: string, orgId: string): Promise<EnterableApp[]> {
    const rows = await enterableApps(this.uow.manager, orgId, userId);
    return rows.map((r) => ({ appId: r.id, name: r.name, kind: r.kind, clientId: r.client_id, projectId: r.project_id, homeUrl: r.home_url }));
  }
}
