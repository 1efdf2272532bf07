import { createHash } from 'node:crypto';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import type { ProjectRolesService } from '../../users/project-access/project-roles.service.js';
import { NO_PROFILES } from '../../users/projects.service.js';
import type { ProjectsService } from '../../users/projects.service.js';
import type { ProjectEditsService } from '../../users/resources/project-edits.service.js';
import type { PlannedClient } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * The clients of a plan, each a project with one OIDC application keeping its `client_id` and secret, the project's
 * roles, and a grant per user holding any (docs/migrating.md, "Clients"). Each goes through the users domain's
 * services, so each change is its usual event. A client brought in earlier is unchanged when its source is; one
 * changed at the source since is listed as a failure, not updated, in this version.
 */
export class ClientStep {
  constructor(
    private readonly services: { projects: ProjectsService; projectEdits: ProjectEditsService; roles: ProjectRolesService; grants: ProjectGrantsService },
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
      // The secret enters the fingerprint only as its hash: the id map holds no secret.
      const fingerprint = fingerprintOf({ ...client, secret: client.secret && createHash('sha256').update(client.secret).digest('hex'), grants });
      const earlier = mapped.get(client.sourceId);
      if (earlier) {
        if (earlier.fingerprint === fingerprint) this.tally.count('client', 'unchanged');
        else
          this.tally.fail({
            kind: 'client',
            sourceId: client.sourceId,
            message: 'changed at the source since it moved in; this version does not update clients that moved in',
          });
        continue;
      }
      if (this.run.dryRun) {
        this.tally.count('client', 'created');
        continue;
      }
      try {
        await this.create(client, grants, fingerprint);
        this.tally.count('client', 'created');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'client', sourceId: client.sourceId, message: error.message });
      }
    }
  }

  private async create(client: PlannedClient, grants: (readonly [string, string[]])[], fingerprint: string): Promise<void> {
    const { projects, roles, grants: grantService } = this.services;
    const { editorUserId, orgId } = this.run;
    const project = await projects.createProject(editorUserId, orgId, client.name);
    try {
      await projects.createOidcApplication(
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
        { clientId: client.clientId, ...(client.secret === null ? {} : { clientSecret: client.secret }) },
      );
    } catch (error) {
      // Nothing of a client that could not come stays behind.
      await this.services.projectEdits.remove(editorUserId, orgId, project.id);
      throw error;
    }
    for (const key of client.roles) await roles.add(editorUserId, orgId, project.id, { key });
    for (const [userId, keys] of grants) await grantService.add(editorUserId, orgId, project.id, { userId, roles: keys });
    this.tally.count('role', 'created', client.roles.length);
    this.tally.count('grant', 'created', grants.length);
    await this.uow.run((manager) => this.objects.remember(manager, 'client', [{ sourceId: client.sourceId, targetId: project.id, fingerprint }]));
  }
}
