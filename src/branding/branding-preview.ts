import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import type { Brand } from './brand-lookup.js';
import { checkBranding } from './branding-document.js';
import { BrandingService } from './branding.service.js';
import { brandRows, scopeId } from './branding.store.js';
import type { BrandScope } from './branding.store.js';
import { insertPreview, previewLogo, previewRow, removePreviewsOf } from './branding-preview.store.js';

/** Where a draft shows: `/ui/login/preview/{token}` (docs/branding.md, "Preview"). */
export const BRAND_PREVIEW_PATH = '/ui/login/preview';
/** How long a preview link shows its draft. */
export const PREVIEW_LIFETIME_MS = 10 * 60_000;
/** The logo's `from` of a draft's logo (its stylesheet and logo carry the token as `preview`). */
export const PREVIEW_LOGO_FROM = 'preview';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface PreviewLink {
  previewUrl: string;
  expiresAt: string;
}

/**
 * Previews of a brand not yet saved (docs/branding.md, "Preview"): a draft goes through the very checks of a `PUT`
 * (contrast, images re-encoded, texts plain), is kept ten minutes under the SHA-256 of a random token, and a link
 * with that token shows the sign-in pages with it, in any process. It applies nothing: no page of a sign-in reads it.
 */
@Injectable()
export class BrandingPreviews {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly dataSource: DataSource,
    private readonly branding: BrandingService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    orgResources: OrgResources,
  ) {
    orgResources.register((manager, orgId) => removePreviewsOf(manager, orgId));
  }

  async create(scope: BrandScope, body: Record<string, unknown>): Promise<PreviewLink> {
    await this.branding.assertScope(scope);
    const checked = await checkBranding(body);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + PREVIEW_LIFETIME_MS;
    await this.uow.run((manager) =>
      insertPreview(manager, {
        tokenHash: hashOf(token),
        scope: scopeId(scope),
        orgId: scope.kind === 'instance' ? null : scope.orgId,
        document: checked.document,
        logo: checked.logo,
        expiresAt,
      }),
    );
    return { previewUrl: `${this.config.publicUrl.replace(/\/$/, '')}${BRAND_PREVIEW_PATH}/${token}`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * The brand a preview link shows: the draft over the layers under its own (an organization's draft over the
   * instance's brand; an application's over both), as a page would show it once saved. Undefined when unknown or expired.
   */
  async brandOf(token: string | undefined): Promise<Brand | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const hash = hashOf(token);
    const draft = await previewRow(this.dataSource.manager, hash);
    if (!draft) return undefined;
    const orgId = draft.scope.startsWith('org:') ? draft.scope.slice(4) : undefined;
    const under = draft.scope === 'instance' ? [] : await brandRows(this.dataSource.manager, ['instance']);
    const document = Object.assign({}, ...under.map((row) => row.document), draft.document);
    const logoFrom = draft.hasLogo ? PREVIEW_LOGO_FROM : [...under].reverse().find((row) => row.hasLogo)?.id;
    return { orgId, document, logoFrom, version: hash.slice(0, 12), preview: token };
  }

  /** A draft's re-encoded logo. */
  async logo(token: string | undefined): Promise<Buffer | undefined> {
    return token && TOKEN.test(token) ? previewLogo(this.dataSource.manager, hashOf(token)) : undefined;
  }
}

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
