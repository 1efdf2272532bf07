import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import { SecretResponse } from '../../common/http/secret-response.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { CredentialsService } from '../../users/credentials.service.js';
import { UsersService } from '../../users/users.service.js';
import { EmptyDto } from '../dto/projects.dto.js';
import {
  CreateHumanUserDto,
  CreateMachineUserDto,
  ExpiringCredentialDto,
  MachineKeyDto,
  MachineSecretDto,
  PersonalAccessTokenDto,
  UserCreatedDto,
} from '../dto/users.dto.js';

@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly credentials: CredentialsService,
  ) {}

  @Post('human')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a human user' })
  @ApiCreatedResponse({ type: UserCreatedDto })
  @ApiConflictResponse({
    description: 'the user name is taken in the organization, or `isEmailVerified` is true for an address another user of the organization holds verified',
  })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async createHuman(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateHumanUserDto): Promise<UserCreatedDto> {
    const user = await this.users.createHuman(caller.userId, orgId, {
      userName: dto.userName,
      firstName: dto.profile.firstName,
      lastName: dto.profile.lastName,
      displayName: dto.profile.displayName,
      preferredLanguage: dto.profile.preferredLanguage,
      email: dto.email.email,
      isEmailVerified: dto.email.isEmailVerified,
      phone: dto.phone?.phone,
      isPhoneVerified: dto.phone?.isPhoneVerified,
      // null (sent empty) means no password, as not sending one does.
      password: dto.password ?? undefined,
    });
    return { userId: user.id };
  }

  @Post('machine')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a machine user' })
  @ApiCreatedResponse({ type: UserCreatedDto })
  @ApiConflictResponse({ description: 'the user name is taken in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async createMachine(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: CreateMachineUserDto): Promise<UserCreatedDto> {
    const user = await this.users.createMachine(caller.userId, orgId, dto);
    return { userId: user.id };
  }

  @Post(':userId/secret')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({
    summary: "Generate a machine user's client secret",
    description: 'Replaces the previous secret; shown only in this response. Only machine users (400 otherwise).',
  })
  @ApiCreatedResponse({ type: MachineSecretDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  setSecret(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Body() _dto: EmptyDto): Promise<MachineSecretDto> {
    return this.credentials.setMachineSecret(caller.userId, orgId, userId);
  }

  @Post(':userId/keys')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a key to a machine user', description: 'The private key is shown only in this response. Only machine users (400 otherwise).' })
  @ApiCreatedResponse({ type: MachineKeyDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async addKey(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() dto: ExpiringCredentialDto,
  ): Promise<MachineKeyDto> {
    const expiresAt = dto.expirationDate ? new Date(dto.expirationDate) : null;
    const key = await this.credentials.addMachineKey(caller.userId, orgId, userId, expiresAt);
    return { keyId: key.keyId, keyDetails: { type: 'serviceaccount', keyId: key.keyId, key: key.privateKeyPem, userId } };
  }

  @Post(':userId/pats')
  @SecretResponse()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a personal access token to a machine user',
    description: 'The token is shown only in this response. Only machine users (400 otherwise).',
  })
  @ApiCreatedResponse({ type: PersonalAccessTokenDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  addPersonalAccessToken(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() dto: ExpiringCredentialDto,
  ): Promise<PersonalAccessTokenDto> {
    const expiresAt = dto.expirationDate ? new Date(dto.expirationDate) : null;
    return this.credentials.addPersonalAccessToken(caller.userId, orgId, userId, expiresAt);
  }
}
