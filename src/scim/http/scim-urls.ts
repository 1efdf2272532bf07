import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';

/** Absolute SCIM URLs from PUBLIC_URL (docs/product-rules.md, "Running it"): `meta.location`, `Location`, bulk `location`. */
@Injectable()
export class ScimUrls {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  base(orgId: string): string {
    return `${this.config.publicUrl}/scim/v2/${encodeURIComponent(orgId)}`;
  }

  user(orgId: string, id: string): string {
    return `${this.base(orgId)}/Users/${encodeURIComponent(id)}`;
  }

  group(orgId: string, id: string): string {
    return `${this.base(orgId)}/Groups/${encodeURIComponent(id)}`;
  }
}
