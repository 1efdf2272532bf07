import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { ProvisioningTargetsService } from '../provisioning-targets.service.js';
import { ProvisioningReconcile } from '../reconcile/reconcile.service.js';
import { objectView, planView } from './provisioning-views.js';
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';
import {
  CreateTargetDto,
  ObjectListDto,
  ObjectsQueryDto,
  ProvisionedObjectDto,
  ReconcileDryRunDto,
  ReconcileDto,
  ReconcileStartedDto,
  TargetCreatedDto,
  TargetDto,
  TargetListDto,
  TargetStatusDto,
  TargetTestDto,
  UpdateTargetDto,
} from './provisioning.dto.js';

/** An organization's outbound SCIM targets (docs/provisioning.md). Secrets are never returned. */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/provisioning/targets')
export class ProvisioningTargetsController {
  constructor(
    private readonly targets: ProvisioningTargetsService,
    private readonly reconciler: ProvisioningReconcile,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a provisioning target', description: 'The SCIM 2.0 service the organization pushes its users (and groups) to.' })
  @ApiCreatedResponse({ type: TargetCreatedDto })
  @ApiNotFoundResponse({ description: 'no such organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  create(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateTargetDto): Promise<TargetCreatedDto> {
    return this.targets.create(caller.userId, orgId, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's provisioning targets" })
  @ApiOkResponse({ type: TargetListDto })
  @ApiNotFoundResponse({ description: 'no such organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<TargetListDto> {
    const { items, total } = searchedList(await this.targets.list(orgId), query, (t) => [t.name, t.baseUrl]);
    return { targets: items, total };
  }

  @Get(':targetId')
  @ApiOperation({ summary: 'Read a provisioning target' })
  @ApiOkResponse({ type: TargetDto })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  get(@Param('orgId') orgId: string, @Param('targetId') targetId: string): Promise<TargetDto> {
    return this.targets.get(orgId, targetId);
  }

  @Patch(':targetId')
  @ApiOperation({
    summary: 'Change a provisioning target',
    description: 'The fields sent change; a new token or client secret replaces the stored one. The target is active again.',
  })
  @ApiOkResponse({ type: TargetDto })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  change(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('targetId') targetId: string, @Body() dto: UpdateTargetDto): Promise<TargetDto> {
    return this.targets.change(caller.userId, orgId, targetId, dto);
  }

  @Delete(':targetId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a provisioning target', description: 'The objects already pushed stay at the target.' })
  @ApiNoContentResponse({ description: 'the target is removed' })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('targetId') targetId: string): Promise<void> {
    return this.targets.remove(caller.userId, orgId, targetId);
  }

  @Post(':targetId/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Test a provisioning target',
    description: "Authenticates and reads the target's ServiceProviderConfig; changes nothing. A failure is the answer's error.",
  })
  @ApiOkResponse({ type: TargetTestDto })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  test(@Param('orgId') orgId: string, @Param('targetId') targetId: string): Promise<TargetTestDto> {
    return this.targets.test(orgId, targetId);
  }

  @Get(':targetId/status')
  @ApiOperation({ summary: "A provisioning target's state, position in the event log and objects" })
  @ApiOkResponse({ type: TargetStatusDto })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  status(@Param('orgId') orgId: string, @Param('targetId') targetId: string): Promise<TargetStatusDto> {
    return this.targets.status(orgId, targetId);
  }

  @Get(':targetId/objects')
  @ApiOperation({ summary: 'The users and groups a provisioning target knows, and how their last push went' })
  @ApiOkResponse({ type: ObjectListDto })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async objects(@Param('orgId') orgId: string, @Param('targetId') targetId: string, @Query() query: ObjectsQueryDto): Promise<ObjectListDto> {
    const { objects, total } = await this.targets.objects(orgId, targetId, query.status, query.limit, query.offset);
    return { objects: objects.map(objectView), total };
  }

  @Post(':targetId/reconcile')
  @ApiOperation({
    summary: 'Reconcile a provisioning target',
    description:
      "Reads the target's Users (at most 5000) and compares them with the organization's people. dryRun: 200 with the plan, nothing changes. " +
      "Else: 202, the plan's users are marked for the pusher (users found only by userName are adopted) and provisioning.reconcile.requested is written. " +
      'A target that cannot be read is a 400 naming why.',
  })
  @ApiOkResponse({ type: ReconcileDryRunDto, description: 'dryRun: what a reconcile would do' })
  @ApiAcceptedResponse({ type: ReconcileStartedDto, description: 'the reconcile is under way' })
  @ApiBadRequestResponse({ description: "dryRun not a boolean; the target's users could not be read, or are too many" })
  @ApiNotFoundResponse({ description: 'no such target of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async reconcile(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('targetId') targetId: string,
    @Body() dto: ReconcileDto,
    @Res() res: Response,
  ): Promise<void> {
    // Two answers on one route (200 with the plan, 202 with the run): the status is set here, not by @HttpCode.
    if (dto.dryRun === true) {
      const answer: ReconcileDryRunDto = { plan: planView(await this.reconciler.plan(orgId, targetId)) };
      res.status(200).json(answer);
    } else {
      const answer: ReconcileStartedDto = await this.reconciler.reconcile(caller.userId, orgId, targetId);
      res.status(202).json(answer);
    }
  }

  @Post(':targetId/objects/:kind/:localId/retry')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Push one object again',
    description: 'A failing or conflicting object (or any other) is pending again, its attempts reset; writes provisioning.retry.requested.',
  })
  @ApiOkResponse({ type: ProvisionedObjectDto })
  @ApiBadRequestResponse({ description: 'kind is not user or group' })
  @ApiNotFoundResponse({ description: 'no such target of the organization, or the target knows no such object' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async retry(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('targetId') targetId: string,
    @Param('kind') kind: string,
    @Param('localId') localId: string,
  ): Promise<ProvisionedObjectDto> {
    if (kind !== 'user' && kind !== 'group') throw DomainError.invalidField('kind', 'kind must be "user" or "group"');
    return objectView(await this.reconciler.retry(caller.userId, orgId, targetId, kind, localId));
  }
}
