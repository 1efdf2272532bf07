import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { GroupsService } from '../users/groups/groups.service.js';
import { ProjectGrantsService } from '../users/project-access/project-grants.service.js';
import { ProjectRolesService } from '../users/project-access/project-roles.service.js';
import { ProjectsService } from '../users/projects.service.js';
import { ProjectEditsService } from '../users/resources/project-edits.service.js';
import { MovingInWriter } from '../users/moving-in/moving-in.writer.js';
import { OrganizationsService } from '../users/organizations.service.js';
import { UserImportWriter } from '../users/user-import.writer.js';
import type { MigrationReportDto, MigrationRequestDto } from './api/migrations.dto.js';
import { planKeycloak } from './keycloak/keycloak.source.js';
import { DocumentFault } from './migration-plan.js';
import type { MigrationPlan } from './migration-plan.js';
import { MigrationRunEntity } from './migration-run.entity.js';
import { MigrationTally } from './migration-tally.js';
import { fingerprintOf, MigratedObjects } from './migrated-objects.js';
import { ClientStep } from './steps/client-step.js';
import { GroupStep } from './steps/group-step.js';
import { UserStep } from './steps/user-step.js';
import type { RunContext } from './steps/user-step.js';

/** The users domain's services a client's project, application, roles and grants are made with. */
@Injectable()
export class ClientServices {
  constructor(
    readonly projects: ProjectsService,
    readonly projectEdits: ProjectEditsService,
    readonly roles: ProjectRolesService,
    readonly grants: ProjectGrantsService,
  ) {}
}

/**
 * `POST /admin/v1/migrations` (docs/migrating.md): the document is read into a plan and checked whole (a fault is a
 * 400 naming its path, and nothing is written), then the organization, the users and the groups come in, each object
 * with its event, keyed by the source's ids so that a second run changes nothing. A dry run computes the same report
 * and writes only the run and its `migration.*` events.
 */
@Injectable()
export class MigrationRunner {
  private readonly logger = new Logger(MigrationRunner.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly organizations: OrganizationsService,
    private readonly writer: MovingInWriter,
    private readonly lookups: UserImportWriter,
    private readonly groups: GroupsService,
    private readonly clients: ClientServices,
  ) {}

  async run(editorUserId: string, request: MigrationRequestDto): Promise<MigrationReportDto> {
    const plan = planOf(request);
    const options = request.options ?? {};
    const dryRun = options.dryRun === true;
    const objects = new MigratedObjects(this.dataSource, request.source, plan.container);
    const organization = await this.organization(editorUserId, request, plan, objects, dryRun);
    const migrationId = newId();
    const createdAt = new Date();
    await this.record(editorUserId, organization.id, 'migration.started', migrationId, { source: request.source, dryRun });

    const tally = new MigrationTally();
    tally.failures.push(...plan.failures);
    for (const failure of plan.failures) tally.count(failure.kind, 'failed');
    tally.unmapped.push(...plan.unmapped);
    const run: RunContext = {
      editorUserId,
      orgId: organization.id,
      migrationId,
      dryRun,
      keepSubjects: options.keepSubjects !== false,
      defaultLanguage: (await this.lookups.instanceDefaults()).defaultLanguage,
      origin: { source: 'migration', migrationId },
    };
    const users = new UserStep(this.writer, this.lookups, objects, tally, run);
    if (options.skipUsers !== true) await users.apply(plan.users);
    else for (const [sourceId, targetId] of await objects.all('user')) users.targets.set(sourceId, targetId);
    await new GroupStep(this.groups, this.uow, objects, tally, run).apply(plan.groups, users.targets);
    await new ClientStep(this.clients, this.uow, objects, tally, run).apply(plan.clients, users.targets);

    const report: MigrationReportDto = {
      migrationId,
      source: request.source,
      dryRun,
      createdAt: createdAt.toISOString(),
      organization,
      counts: tally.counts,
      failures: tally.failures,
      unmapped: tally.unmapped,
    };
    await this.uow.run(async (manager) => {
      await manager.insert(MigrationRunEntity, { id: migrationId, source: request.source, orgId: organization.id, dryRun, editorUserId, report, createdAt });
      await this.pushEvent(manager, editorUserId, organization.id, 'migration.finished', migrationId, { source: request.source, dryRun, counts: tally.counts });
    });
    this.logger.log(`migration ${migrationId} (${request.source}${dryRun ? ', dry run' : ''}): ${JSON.stringify(tally.counts)}`);
    return report;
  }

  /** The organization given, the one an earlier run made for this source, or a new one named after it. */
  private async organization(
    editorUserId: string,
    request: MigrationRequestDto,
    plan: MigrationPlan,
    objects: MigratedObjects,
    dryRun: boolean,
  ): Promise<{ id: string; name: string; created: boolean }> {
    if (request.orgId !== undefined) {
      const org = await this.organizations.get(request.orgId);
      if (org.id !== request.orgId) throw DomainError.notFound('organization');
      return { id: org.id, name: org.name, created: false };
    }
    const earlier = (await objects.find('org', [plan.container])).get(plan.container);
    if (earlier) {
      const org = await this.organizations.get(earlier.targetId).catch(() => undefined);
      if (org) return { id: org.id, name: org.name, created: false };
    }
    if (dryRun) return { id: '', name: plan.orgName, created: true };
    const org = await this.organizations.create(editorUserId, plan.orgName);
    await this.uow.run((manager) =>
      objects.remember(manager, 'org', [{ sourceId: plan.container, targetId: org.id, fingerprint: fingerprintOf(plan.orgName) }]),
    );
    return { id: org.id, name: org.name, created: true };
  }

  private record(
    editorUserId: string,
    orgId: string,
    type: 'migration.started',
    migrationId: string,
    payload: Record<string, string | boolean>,
  ): Promise<void> {
    return this.uow.run((manager) => this.pushEvent(manager, editorUserId, orgId, type, migrationId, payload));
  }

  private async pushEvent(
    manager: Parameters<EventStore['push']>[0],
    editorUserId: string,
    orgId: string,
    type: 'migration.started' | 'migration.finished',
    migrationId: string,
    payload: object,
  ): Promise<void> {
    await this.events.push(manager, {
      type,
      aggregateType: 'migration',
      aggregateId: migrationId,
      resourceOwner: orgId === '' ? 'instance' : orgId,
      editorUserId,
      payload: payload as never,
    });
  }
}

/** The source's reading of the document; a structural fault is the request's 400. */
function planOf(request: MigrationRequestDto): MigrationPlan {
  try {
    switch (request.source) {
      case 'keycloak':
        return planKeycloak(request.document);
    }
  } catch (error) {
    if (error instanceof DocumentFault) throw DomainError.invalidField(error.path, `invalid document: ${error.message}`);
    throw error;
  }
}
