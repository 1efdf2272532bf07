import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import type { EventType } from '../common/events/event-types.js';
import { organizationExists } from '../users/queries/organizations.js';
import { applicationIn } from '../users/resources/application-access.js';
import { checkBranding } from './branding-document.js';
import type { BrandingDocument } from './branding-document.js';
import { brandImage, brandRows, removeBrand, removeBrandsOf, scopeId, writeBrand } from './branding.store.js';
import type { BrandScope } from './branding.store.js';

/** A brand as the API shows it: the document with its images as data URLs of the re-encoded PNGs. */
export type BrandingView = BrandingDocument & { logo?: string; icon?: string };

/**
 * The brands of the sign-in pages (docs/branding.md): set, read and removed by an IAM_OWNER (the instance's) and an
 * ORG_OWNER (its organization's and its applications'), each change with its event in the same transaction. The
 * event says which fields are set, never the images.
 */
@Injectable()
export class BrandingService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    orgResources: OrgResources,
  ) {
    orgResources.register((manager, orgId) => removeBrandsOf(manager, orgId));
  }

  async get(scope: BrandScope): Promise<BrandingView> {
    await this.assertScope(scope);
    const id = scopeId(scope);
    const [row] = await brandRows(this.uow.manager, [id]);
    if (!row) {
      if (scope.kind === 'instance') return {};
      throw DomainError.notFound('branding');
    }
    const view: BrandingView = { ...row.document };
    if (row.hasLogo) view.logo = dataUrl(await brandImage(this.uow.manager, id, 'logo'));
    if (row.hasIcon) view.icon = dataUrl(await brandImage(this.uow.manager, id, 'icon'));
    return view;
  }

  async put(editorUserId: string | null, scope: BrandScope, body: Record<string, unknown>): Promise<BrandingView> {
    await this.assertScope(scope);
    const checked = await checkBranding(body);
    const id = scopeId(scope);
    await this.uow.run(async (manager) => {
      await writeBrand(manager, { id, orgId: scope.kind === 'instance' ? null : scope.orgId, ...checked, revision: randomBytes(6).toString('base64url') });
      await this.event(manager, editorUserId, scope, 'changed', {
        fields: [...Object.keys(checked.document), ...(checked.logo ? ['logo'] : []), ...(checked.icon ? ['icon'] : [])],
      });
    });
    return this.get(scope);
  }

  async remove(editorUserId: string | null, scope: BrandScope): Promise<void> {
    await this.assertScope(scope);
    await this.uow.run(async (manager) => {
      if (!(await removeBrand(manager, scopeId(scope)))) throw DomainError.notFound('branding');
      await this.event(manager, editorUserId, scope, 'removed', {});
    });
  }

  /** The organization, and the application within its project and organization (404 elsewhere: tenant isolation). */
  async assertScope(scope: BrandScope): Promise<void> {
    if (scope.kind === 'instance') return;
    if (!(await organizationExists(this.uow.manager, scope.orgId))) throw DomainError.notFound('organization');
    if (scope.kind === 'app') await applicationIn(this.uow.manager, scope.orgId, scope.projectId, scope.appId);
  }

  private async event(
    manager: EntityManager,
    editorUserId: string | null,
    scope: BrandScope,
    change: 'changed' | 'removed',
    payload: { fields?: string[] },
  ): Promise<void> {
    const type: EventType =
      scope.kind === 'instance' ? 'instance.branding.changed' : scope.kind === 'org' ? `org.branding.${change}` : `project.application.branding.${change}`;
    const aggregate =
      scope.kind === 'instance'
        ? { aggregateType: 'instance' as const, aggregateId: 'instance', resourceOwner: 'instance' }
        : scope.kind === 'org'
          ? { aggregateType: 'org' as const, aggregateId: scope.orgId, resourceOwner: scope.orgId }
          : { aggregateType: 'application' as const, aggregateId: scope.appId, resourceOwner: scope.orgId };
    await this.events.push(manager, { type, ...aggregate, editorUserId, payload });
  }
}

function dataUrl(png: Buffer | undefined): string | undefined {
  return png ? `data:image/png;base64,${png.toString('base64')}` : undefined;
}
