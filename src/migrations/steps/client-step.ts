import { createHash } from 'node:crypto';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import type { ProjectRolesService } from '../../users/project-access/project-roles.service.js';
import { NO_PROFILES } from '../../users/projects.service.js';
import type { ProjectsService } from '../../users/projects.service.js';
import type { ApplicationEditsService } from '../../users/resources/application-edits.service.js';
import type { ProjectEditsService } from '../../users/resources/project-edits.service.js';
import type { PlannedClient } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import { syncGrants } from './grant-sync.js';
import type { IssuedSecret } from './project-step.js';
import type { RunContext } from './user-step.js';

/**
 * A client's fingerprint in two halves: its settings, and its secret (as a hash of a hash: the id map holds no
 * secret), so a second run tells a changed redirect URI from a rotated secret. 31 + 1 + 32 hex digits.
 */
export function clientFingerprint(client: PlannedClient): string {
  const { grants: _perUser, secret, ...settings } = client;
  const secretHalf = createHash('sha256')
    .update(`secret:${secret === null ? '' : createHash('sha256').update(secret).digest('hex')}`)
    .digest('hex');
  return `${fingerprintOf(settings).slice(0, 31)}.${secretHalf.slice(0, 32)}`;
}

/**
 * The clients of a plan, each a project with one OIDC application keeping its `client_id` and secret, the project's
 * roles, and a grant per user holding any (docs/migrating.md, "Clients"). Each goes through the users domain's
 * services, so each change is its usual event. A client brought in earlier is unchanged when its source is; one
 * changed at the source since is updated (its settings and new roles; a changed secret is a listed failure). Grants are per user and apart
 * from the client's fingerprint: a document holding a part of the realm's users (the CLI's parts) adds and updates
 * the grants of its users and leaves the others alone.
 */
export class ClientStep {
  /** Secrets made here for clients moved in with `secrets: "rotate"`: returned once, never stored. */
  readonly issued: IssuedSecret[] = [];

  constructor(
    private readonly services: {
      projects: ProjectsService;
      projectEdits: ProjectEditsService;
      roles: ProjectRolesService;
      grants: ProjectGrantsService;
      appEdits: ApplicationEditsService;
    },
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(clients: PlannedClient[], userTargets: Map<string, string>): Promise<void> {
    const mapped = await this.objects.find(
      'client',
      clients.map((c) => c.sourceId),
    );
    for (const client of clients) {
      const grants = [...client.grants].flatMap(([sourceId, roles]) => (userTargets.has(sourceId) ? [[userTargets.get(sourceId)!, roles] as const] : []));
      const fingerprint = clientFingerprint(client);
      const earlier = mapped.get(client.sourceId);
      try {
        if (earlier) {
          if (earlier.fingerprint === fingerprint) this.tally.count('client', 'unchanged');
          else await this.update(client, earlier.targetId, earlier.fingerprint, fingerprint);
          await this.syncGrants(client.clientId, earlier.targetId, grants);
          continue;
        }
        if (this.run.dryRun) {
          this.tally.count('client', 'created');
          this.tally.count('role', 'created', client.roles.length);
          this.tally.count('grant', 'created', grants.length);
          continue;
        }
        const projectId = await this.create(client, fingerprint);
        this.tally.count('client', 'created');
        await this.syncGrants(client.clientId, projectId, grants);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'client', sourceId: client.sourceId, message: error.message });
      }
    }
  }

  /**
   * A client changed at the source since it moved in: its project's name, its application's settings and its new
   * roles follow the source. A secret changed at the source cannot be set here (only made anew): listed as a
   * failure until the operator regenerates it, and the id map keeps the old secret's half so it stays listed.
   */
  private async update(client: PlannedClient, projectId: string, earlier: string, now: string): Promise<void> {
    const [settings0, secret0] = earlier.includes('.') ? earlier.split('.') : [earlier, undefined];
    const [settings1, secret1] = now.split('.');
    const { editorUserId, orgId, dryRun } = this.run;
    if (settings0 !== settings1) {
      const apps = await this.services.appEdits.list(orgId, projectId, { limit: 100, offset: 0 });
      const app = apps.items.find((a) => a.clientId === client.clientId);
      if (!app) throw DomainError.notFound('application');
      if (!dryRun) {
        await this.services.projectEdits.rename(editorUserId, orgId, projectId, client.name);
        await this.services.appEdits.change(editorUserId, orgId, projectId, app.id, {
          name: client.name,
          redirectUris: client.redirectUris,
          postLogoutRedirectUris: client.postLogoutRedirectUris,
          responseTypes: client.responseTypes,
          grantTypes: client.grantTypes,
          devMode: client.devMode,
          backchannelLogoutUri: client.backchannelLogoutUri,
        });
        const held = new Set((await this.services.roles.list(orgId, projectId, { limit: 1000, offset: 0 })).items.map((r) => r.key));
        for (const key of client.roles.filter((k) => !held.has(k))) {
          await this.services.roles.add(editorUserId, orgId, projectId, { key });
          this.tally.count('role', 'created');
        }
      }
      this.tally.count('client', 'updated');
    }
    const secretChanged = secret0 !== undefined && secret0 !== secret1;
    if (secretChanged)
      this.tally.fail({
        kind: 'client',
        sourceId: client.sourceId,
        message: 'the secret changed at the source since it moved in: regenerate it here and give the new one to the application',
      });
    if (!dryRun) {
      const kept = secretChanged ? `${settings1}.${secret0}` : now;
      await this.uow.run((manager) => this.objects.remember(manager, 'client', [{ sourceId: client.sourceId, targetId: projectId, fingerprint: kept }]));
    }
  }

  private syncGrants(clientId: string, projectId: string, grants: (readonly [string, string[]])[]): Promise<void> {
    return syncGrants(this.services.grants, this.run, this.tally, clientId, projectId, grants);
  }

  private async create(client: PlannedClient, fingerprint: string): Promise<string> {
    const { projects, roles } = this.services;
    const { editorUserId, orgId } = this.run;
    const project = await projects.createProject(editorUserId, orgId, client.name);
    try {
      const rotate = this.run.rotateSecrets && client.secret !== null;
      const made = await projects.createOidcApplication(
        editorUserId,
        orgId,
        project.id,
        {
          name: client.name,
          redirectUris: client.redirectUris,
          postLogoutRedirectUris: client.postLogoutRedirectUris,
          responseTypes: client.responseTypes,
          grantTypes: client.grantTypes,
          authMethod: client.secret === null ? 'none' : 'client_secret_basic',
          // Keycloak's defaults: JWT access tokens, and the profile claims in the ID token.
          accessTokenType: 'jwt',
          idTokenUserinfoAssertion: true,
          devMode: client.devMode,
          apiAccess: false,
          ...NO_PROFILES,
          backchannelLogoutUri: client.backchannelLogoutUri,
        },
        undefined,
        { clientId: client.clientId, ...(client.secret === null || rotate ? {} : { clientSecret: client.secret }) },
      );
      if (rotate && made.clientSecret !== undefined) this.issued.push({ clientId: made.clientId, clientSecret: made.clientSecret });
    } catch (error) {
      // Nothing of a client that could not come stays behind.
      await this.services.projectEdits.remove(editorUserId, orgId, project.id);
      throw error;
    }
    for (const key of client.roles) await roles.add(editorUserId, orgId, project.id, { key });
    this.tally.count('role', 'created', client.roles.length);
    await this.uow.run((manager) => this.objects.remember(manager, 'client', [{ sourceId: client.sourceId, targetId: project.id, fingerprint }]));
    return project.id;
  }
}
