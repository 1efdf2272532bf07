import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { ProjectsService } from '../../users/projects.service.js';
import type { ApplicationEditsService } from '../../users/resources/application-edits.service.js';
import type { ProjectEditsService } from '../../users/resources/project-edits.service.js';
import type { PlannedSamlApp } from '../migration-plan.js';
import { fingerprintOf } from '../migrated-objects.js';
import type { MigratedObjects } from '../migrated-objects.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * SAML service providers (Keycloak's `saml` clients), each a project of its name with one SAML application keeping
 * the entity id, ACS URLs, certificate and NameID format (docs/migrating.md, "SAML clients"). One the instance
 * refuses (an entity id another application holds, an ACS URL that is not https) is a listed failure. A provider
 * changed at the source since is changed here.
 */
export class SamlStep {
  constructor(
    private readonly services: { projects: ProjectsService; projectEdits: ProjectEditsService; appEdits: ApplicationEditsService },
    private readonly uow: UnitOfWork,
    private readonly objects: MigratedObjects,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(apps: PlannedSamlApp[]): Promise<void> {
    const mapped = await this.objects.find(
      'saml',
      apps.map((a) => a.sourceId),
    );
    const { editorUserId, orgId, dryRun } = this.run;
    for (const app of apps) {
      const fingerprint = fingerprintOf(app);
      const earlier = mapped.get(app.sourceId);
      const { sourceId: _id, name, ...settings } = app;
      try {
        if (earlier?.fingerprint === fingerprint) {
          this.tally.count('samlApp', 'unchanged');
          continue;
        }
        if (dryRun) {
          this.tally.count('samlApp', earlier ? 'updated' : 'created');
          continue;
        }
        if (earlier) {
          const listed = await this.services.appEdits.list(orgId, earlier.targetId, { limit: 100, offset: 0 });
          const target = listed.items.find((a) => a.kind === 'saml');
          if (!target) throw DomainError.notFound('application');
          await this.services.projectEdits.rename(editorUserId, orgId, earlier.targetId, name);
          await this.services.appEdits.change(editorUserId, orgId, earlier.targetId, target.id, { name, ...settings });
          await this.remember(app.sourceId, earlier.targetId, fingerprint);
          this.tally.count('samlApp', 'updated');
          continue;
        }
        const project = await this.services.projects.createProject(editorUserId, orgId, name);
        try {
          await this.services.projects.createSamlApplication(editorUserId, orgId, project.id, { name, ...settings, attributes: [] });
        } catch (error) {
          // Nothing of a provider that could not come stays behind.
          await this.services.projectEdits.remove(editorUserId, orgId, project.id);
          throw error;
        }
        await this.remember(app.sourceId, project.id, fingerprint);
        this.tally.count('samlApp', 'created');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'samlApp', sourceId: app.sourceId, message: error.message });
      }
    }
  }

  private remember(sourceId: string, targetId: string, fingerprint: string): Promise<void> {
    return this.uow.run((manager) => this.objects.remember(manager, 'saml', [{ sourceId, targetId, fingerprint }]));
  }
}
