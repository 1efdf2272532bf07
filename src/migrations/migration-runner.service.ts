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
import { ApplicationEditsService } from '../users/resources/application-edits.service.js';
import { ProjectEditsService } from '../users/resources/project-edits.service.js';
import { MovingInWriter } from '../users/moving-in/moving-in.writer.js';
import { OrganizationsService } from '../users/organizations.service.js';
import { UserImportWriter } from '../users/user-import.writer.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import { MembershipsService } from '../users/memberships.service.js';
import { UserEditService } from '../users/user-edit.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { UsersService } from '../users/users.service.js';
import { CredentialsService } from '../users/credentials.service.js';
import type { MigrationInput } from './migration-input.js';
import { asBadRequest } from './reading/bad-request.js';
import type { MigrationOptionsDto, MigrationReportDto, MigrationRequestDto } from './api/migrations.dto.js';
import { partsOf, shiftIndex } from './reading/export-reader.js';
import type { ExportReader, Part } from './reading/export-reader.js';
import { ReportMerge } from './report-merge.js';
import type { PartOutcome } from './report-merge.js';
import { planDocument } from './sources.js';

/** Users planned and written at a time: memory holds a part, not the document (docs/migrating.md, "Large exports"). */
const PART_USERS = 5_000;
import { DocumentFault, MAX_USERS_PER_REQUEST } from './migration-plan.js';
import type { MigrationPlan } from './migration-plan.js';
import { MigrationRunEntity } from './migration-run.entity.js';
import { MigrationTally } from './migration-tally.js';
import { fingerprintOf, MigratedObjects } from './migrated-objects.js';
import { ClientStep } from './steps/client-step.js';
import { GroupStep } from './steps/group-step.js';
import { MachineStep } from './steps/machine-step.js';
import { MemberStep } from './steps/member-step.js';
import { ProjectStep } from './steps/project-step.js';
import { SamlStep } from './steps/saml-step.js';
import { IdpStep } from './steps/idp-step.js';
import { IdentityProvidersService } from '../federation/identity-providers.service.js';
import { UserIdentitiesService } from '../federation/user-identities.service.js';
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
    readonly appEdits: ApplicationEditsService,
  ) {}
}

/** The federation room's services upstream IdPs and users' links to them are made with. */
@Injectable()
export class FederationServices {
  constructor(
    readonly idps: IdentityProvidersService,
    readonly identities: UserIdentitiesService,
  ) {}
}

/** The users domain's services users, machine users and members are changed with on a later run. */
@Injectable()
export class PeopleServices {
  constructor(
    readonly users: UsersService,
    readonly edits: UserEditService,
    readonly lifecycle: UserLifecycleService,
    readonly access: UserAccess,
    readonly memberships: MembershipsService,
    readonly credentials: CredentialsService,
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
    private readonly people: PeopleServices,
    private readonly federation: FederationServices,
  ) {}

  async run(editorUserId: string, input: MigrationInput): Promise<MigrationReportDto> {
    const { request, reader } = input;
    const options = request.options ?? {};
    const dryRun = options.dryRun === true;
    const skeleton = await reader.skeleton().catch(rethrowAsBadRequest);
    const partSize = reader.perPart ?? PART_USERS;
    const checked = await this.checkEveryPart(request, reader, skeleton, partSize);
    const objects = new MigratedObjects(this.dataSource, request.source, checked.first.container);
    const organization = await this.organization(editorUserId, request, checked.first, objects, dryRun);
    const migrationId = newId();
    const createdAt = new Date();
    await this.record(editorUserId, organization.id, 'migration.started', migrationId, { source: request.source, dryRun });

    const run: RunContext = {
      editorUserId,
      orgId: organization.id,
      migrationId,
      dryRun,
      keepSubjects: options.keepSubjects !== false,
      rotateSecrets: options.secrets === 'rotate',
      defaultLanguage: (await this.lookups.instanceDefaults()).defaultLanguage,
      origin: { source: 'migration', migrationId },
    };
    const merge = new ReportMerge(reader.perPart !== undefined);
    if (checked.parts === 1) merge.add(await this.apply(checked.first, objects, run, options), 0);
    else {
      for await (const part of readParts(reader, skeleton, partSize)) {
        merge.add(await this.apply(part.offset === 0 ? checked.first : planOfPart(request, part), objects, run, options), part.offset);
      }
    }

    const report: MigrationReportDto = {
      migrationId,
      source: request.source,
      dryRun,
      createdAt: createdAt.toISOString(),
      organization,
      counts: merge.counts,
      failures: merge.failures,
      unmapped: merge.unmapped,
    };
    await this.uow.run(async (manager) => {
      await manager.insert(MigrationRunEntity, { id: migrationId, source: request.source, orgId: organization.id, dryRun, editorUserId, report, createdAt });
      await this.pushEvent(manager, editorUserId, organization.id, 'migration.finished', migrationId, { source: request.source, dryRun, counts: merge.counts });
    });
    this.logger.log(`migration ${migrationId} (${request.source}${dryRun ? ', dry run' : ''}): ${JSON.stringify(merge.counts)}`);
    // Credentials made here for applications whose source exports none: in this answer once, never stored or logged.
    return merge.secrets.length > 0 ? { ...report, secrets: merge.secrets } : report;
  }

  /**
   * Every part read and planned before anything is written, so that a fault in the last user refuses the whole
   * request; the first part's plan names the organization. Only that plan is held: the other parts are read again
   * to be written.
   */
  private async checkEveryPart(
    request: MigrationRequestDto,
    reader: ExportReader,
    skeleton: unknown,
    partSize: number,
  ): Promise<{ first: MigrationPlan; parts: number }> {
    let first: MigrationPlan | undefined;
    let users = 0;
    let parts = 0;
    for await (const part of readParts(reader, skeleton, partSize)) {
      const plan = planOfPart(request, part);
      first ??= plan;
      parts += 1;
      users += part.users;
      if (users > MAX_USERS_PER_REQUEST) {
        const at = request.source === 'keycloak' ? 'document.users' : 'document';
        throw DomainError.invalidField(
          at,
          `invalid document: ${at}: holds more than ${MAX_USERS_PER_REQUEST} users per request: send them in parts (portcullis import ${request.source} does)`,
        );
      }
    }
    return { first: first as MigrationPlan, parts };
  }

  /** One part's plan written: its users, then what refers to them, each object with its event. */
  private async apply(plan: MigrationPlan, objects: MigratedObjects, run: RunContext, options: MigrationOptionsDto): Promise<PartOutcome> {
    const tally = new MigrationTally();
    tally.failures.push(...plan.failures);
    for (const failure of plan.failures) tally.count(failure.kind, 'failed');
    tally.unmapped.push(...plan.unmapped);
    const users = new UserStep(this.writer, this.lookups, objects, tally, run, { ...pick(this.people), uow: this.uow });
    if (options.skipUsers !== true) await users.apply(plan.users);
    else {
      // The document speaks for its own users only: those of them that moved in earlier.
      const earlier = await objects.find(
        'user',
        plan.users.map((u) => u.sourceId),
      );
      for (const [sourceId, mapped] of earlier) users.targets.set(sourceId, mapped.targetId);
    }
    await new GroupStep(this.groups, this.uow, objects, tally, run).apply(plan.groups, users.targets);
    const clients = new ClientStep(this.clients, this.uow, objects, tally, run);
    await clients.apply(plan.clients, users.targets);
    const machines = new MachineStep(this.people, this.uow, objects, tally, run, users.targets);
    if (plan.machines) await machines.apply(plan.machines);
    if (plan.samlApps) await new SamlStep(this.clients, this.uow, objects, tally, run).apply(plan.samlApps);
    if (plan.idps) await new IdpStep(this.federation, this.uow, objects, tally, run).apply(plan.idps, plan.idpLinks ?? [], users.targets);
    const projects = new ProjectStep(this.clients, this.uow, objects, tally, run);
    if (plan.projects) await projects.apply(plan.projects, users.targets);
    if (plan.members) await new MemberStep(this.people.memberships, tally, run).apply(plan.members, users.targets);
    return { ...tally, secrets: [...clients.issued, ...machines.issued, ...projects.issued] };
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

/** A part's plan; a structural fault is the request's 400, naming its place in the whole document. */
function planOfPart(request: MigrationRequestDto, part: Part): MigrationPlan {
  try {
    return planDocument(request.source, part.request.document, { passwordHashes: part.request.passwordHashes });
  } catch (error) {
    if (error instanceof DocumentFault) {
      const path = shiftIndex(error.path, part.offset);
      throw DomainError.invalidField(path, `invalid document: ${path}: ${error.problem}`);
    }
    throw error;
  }
}

/** The parts of the document; a fault of its text is the request's 400. */
async function* readParts(reader: ExportReader, skeleton: unknown, partSize: number): AsyncIterable<Part> {
  try {
    yield* partsOf(reader, skeleton, partSize);
  } catch (error) {
    rethrowAsBadRequest(error);
  }
}

function rethrowAsBadRequest(error: unknown): never {
  throw asBadRequest(error);
}

function pick(people: PeopleServices): { edits: UserEditService; lifecycle: UserLifecycleService; access: UserAccess } {
  return { edits: people.edits, lifecycle: people.lifecycle, access: people.access };
}
