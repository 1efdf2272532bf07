import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import type { ProjectRolesService } from '../../users/project-access/project-roles.service.js';
import { NO_PROFILES } from '../../users/projects.service.js';
import type { ProjectsService } from '../../users/projects.service.js';
import type { ProjectEditsService } from '../../users/resources/project-edits.service.js';
import type { PlannedApp, PlannedProject } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import { syncGrants } from './grant-sync.js';
import type { RunContext } from './user-step.js';

/** The client id (and secret) made for an application whose source exports neither; returned once, never stored in the report. */
export interface IssuedSecret {
  clientId: string;
  clientSecret?: string;
}

/**
 * The projects of a plan (ZITADEL's), each with its roles, applications and grants, through the users domain's
 * services so each change is its usual event (docs/migrating.md, "ZITADEL"). Found again by the id map: a renamed
 * project is renamed, a new role or application added, a role's changed display name changed; an application
 * changed at the source since it moved in is listed as a failure (its settings here may have been edited since).
 * The source's export holds no client ids or secrets, so each new application gets its own, returned once.
 */
export class ProjectStep {
  readonly issued: IssuedSecret[] = [];

  constructor(
    private readonly services: { projects: ProjectsService; projectEdits: ProjectEditsService; roles: ProjectRolesService; grants: ProjectGrantsService },
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(projects: PlannedProject[], userTargets: Map<string, string>): Promise<void> {
    const mapped = await this.objects.find(
      'project',
      projects.map((p) => p.sourceId),
    );
    const apps = await this.objects.find(
      'app',
      projects.flatMap((p) => p.apps.map((a) => a.sourceId)),
    );
    for (const project of projects) {
      const grants = [...project.grants].flatMap(([sourceId, roles]) => (userTargets.has(sourceId) ? [[userTargets.get(sourceId)!, roles] as const] : []));
      try {
        const projectId = await this.project(project, mapped.get(project.sourceId));
        await this.roles(project, projectId);
        for (const app of project.apps) await this.app(app, projectId, apps.get(app.sourceId));
        await syncGrants(this.services.grants, this.run, this.tally, project.name, projectId, grants);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'project', sourceId: project.sourceId, message: error.message });
      }
    }
  }

  /** The project's id here ('' in a dry run that would create it). */
  private async project(project: PlannedProject, earlier: { targetId: string; fingerprint: string } | undefined): Promise<string> {
    const { editorUserId, orgId, dryRun } = this.run;
    const fingerprint = fingerprintOf({ name: project.name });
    if (!earlier) {
      this.tally.count('project', 'created');
      if (dryRun) return '';
      const made = await this.services.projects.createProject(editorUserId, orgId, project.name);
      await this.remember('project', project.sourceId, made.id, fingerprint);
      return made.id;
    }
    if (earlier.fingerprint === fingerprint) this.tally.count('project', 'unchanged');
    else {
      if (!dryRun) {
        await this.services.projectEdits.rename(editorUserId, orgId, earlier.targetId, project.name);
        await this.remember('project', project.sourceId, earlier.targetId, fingerprint);
      }
      this.tally.count('project', 'updated');
    }
    return earlier.targetId;
  }

  private async roles(project: PlannedProject, projectId: string): Promise<void> {
    const { editorUserId, orgId, dryRun } = this.run;
    const held = new Map<string, string | null>();
    if (projectId !== '')
      for (const role of (await this.services.roles.list(orgId, projectId, { limit: 1000, offset: 0 })).items) held.set(role.key, role.displayName);
    for (const role of project.roles) {
      if (!held.has(role.key)) {
        if (!dryRun) await this.services.roles.add(editorUserId, orgId, projectId, { key: role.key, displayName: role.displayName });
        this.tally.count('role', 'created');
      } else if (held.get(role.key) !== role.displayName) {
        if (!dryRun) await this.services.roles.change(editorUserId, orgId, projectId, role.key, { displayName: role.displayName });
        this.tally.count('role', 'updated');
      } else this.tally.count('role', 'unchanged');
    }
  }

  private async app(app: PlannedApp, projectId: string, earlier: { targetId: string; fingerprint: string } | undefined): Promise<void> {
    const fingerprint = fingerprintOf(app);
    if (earlier) {
      if (earlier.fingerprint === fingerprint) this.tally.count('app', 'unchanged');
      else
        this.tally.fail({
          kind: 'app',
          sourceId: app.sourceId,
          message: 'changed at the source since it moved in: change the application here (its settings may have been edited since)',
        });
      return;
    }
    this.tally.count('app', 'created');
    if (this.run.dryRun) return;
    const { editorUserId, orgId } = this.run;
    const made =
      app.kind === 'api'
        ? await this.services.projects.createApiApplication(editorUserId, orgId, projectId, {
            name: app.name,
            authMethod: app.authMethod === 'private_key_jwt' ? 'private_key_jwt' : 'client_secret_basic',
          })
        : await this.services.projects.createOidcApplication(editorUserId, orgId, projectId, {
            name: app.name,
            redirectUris: app.redirectUris,
            postLogoutRedirectUris: app.postLogoutRedirectUris,
            responseTypes: app.responseTypes,
            grantTypes: app.grantTypes,
            authMethod: app.authMethod,
            accessTokenType: app.accessTokenType,
            idTokenUserinfoAssertion: app.idTokenUserinfoAssertion,
            devMode: app.devMode,
            apiAccess: false,
            ...NO_PROFILES,
            backchannelLogoutUri: app.backchannelLogoutUri,
          });
    this.issued.push({ clientId: made.clientId, ...(made.clientSecret !== undefined ? { clientSecret: made.clientSecret } : {}) });
    await this.remember('app', app.sourceId, made.appId, fingerprint);
  }

  private remember(kind: string, sourceId: string, targetId: string, fingerprint: string): Promise<void> {
    return this.uow.run((manager) => this.objects.remember(manager, kind, [{ sourceId, targetId, fingerprint }]));
  }
}
