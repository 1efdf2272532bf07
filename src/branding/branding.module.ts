import { Global, Module } from '@nestjs/common';
import { BrandAssets } from './brand-assets.js';
import { BrandLookup } from './brand-lookup.js';
import { AppBrandingController, InstanceBrandingController, OrgBrandingController } from './branding.controller.js';
import { BrandingService } from './branding.service.js';
import { BrandingPreviews } from './branding-preview.js';

/** Brands of the sign-in pages (docs/branding.md): the API that sets them, and what pages read of them. */
@Global()
@Module({
  controllers: [InstanceBrandingController, OrgBrandingController, AppBrandingController],
  providers: [BrandingService, BrandLookup, BrandAssets, BrandingPreviews],
  exports: [BrandLookup, BrandAssets, BrandingPreviews],
})
export class BrandingModule {}
