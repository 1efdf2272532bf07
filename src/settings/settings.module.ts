import { Global, Module } from '@nestjs/common';
import { AppTokenLifetimes } from './app-token-lifetimes.service.js';
import { InstanceSettings } from './instance-settings.service.js';
import { SettingsController } from './settings.controller.js';

/** The instance's settings, read on use by tokens, password checks and organization creation. */
@Global()
@Module({
  controllers: [SettingsController],
  providers: [InstanceSettings, AppTokenLifetimes],
  exports: [InstanceSettings, AppTokenLifetimes],
})
export class SettingsModule {}
