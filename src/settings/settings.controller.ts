import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator.js';
import { Caller } from '../common/auth/caller.decorator.js';
import type { Principal } from '../common/auth/principal.js';
import { Role } from '../common/auth/roles.js';
import { InstanceSettings } from './instance-settings.service.js';
import { SettingsDto, SettingsPatchDto } from './settings.dto.js';

/** The instance's settings (docs/operations.md, "Settings"). */
@ApiTags('admin')
@Controller('admin/v1/settings')
export class SettingsController {
  constructor(private readonly settings: InstanceSettings) {}

  @Get()
  @ApiOperation({ summary: "Read the instance's settings" })
  @ApiOkResponse({ type: SettingsDto })
  @Authenticated({ role: Role.IamOwner })
  get(): Promise<SettingsDto> {
    return this.settings.get();
  }

  @Patch()
  @ApiOperation({ summary: "Change the instance's settings", description: 'A section or field not sent keeps its value; the answer is the whole settings.' })
  @ApiOkResponse({ type: SettingsDto })
  @Authenticated({ role: Role.IamOwner })
  change(@Caller() caller: Principal, @Body() dto: SettingsPatchDto): Promise<SettingsDto> {
    return this.settings.change(caller.userId, dto);
  }
}
