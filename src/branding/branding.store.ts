import type { EntityManager } from 'typeorm';
import { readRows } from '../common/database/statements.js';
import type { BrandingDocument } from './branding-document.js';

/**
 * The rows of `branding`, which this module owns (docs/architecture.md, "Data"): `instance`, `org:{id}` or
 * `app:{id}`, the document as JSON, the images as base64 PNG, and a revision that changes with every write (the
 * stylesheet's and logo's URLs carry it).
 */
export type BrandScope = { kind: 'instance' } | { kind: 'org'; orgId: string } | { kind: 'app'; orgId: string; projectId: string; appId: string };

export function scopeId(scope: BrandScope): string {
  return scope.kind === 'instance' ? 'instance' : scope.kind === 'org' ? `org:${scope.orgId}` : `app:${scope.appId}`;
}

export interface BrandRow {
  id: string;
  document: BrandingDocument;
  hasLogo: boolean;
  hasIcon: boolean;
  revision: string;
}

interface RawRow {
  id: string;
  document: string;
  has_logo: number | string;
  has_icon: number | string;
  revision: string;
}

/** The documents of these ids (never the images): what a page needs, in one statement. */
export async function brandRows(manager: EntityManager, ids: string[]): Promise<BrandRow[]> {
  const rows = await readRows<RawRow>(
    manager,
    `SELECT id, document, CASE WHEN logo IS NULL THEN 0 ELSE 1 END AS has_logo, CASE WHEN icon IS NULL THEN 0 ELSE 1 END AS has_icon, revision FROM branding WHERE id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return rows.map((row) => ({
    id: row.id,
    document: JSON.parse(row.document) as BrandingDocument,
    hasLogo: Number(row.has_logo) === 1,
    hasIcon: Number(row.has_icon) === 1,
    revision: row.revision,
  }));
}

/** One brand's image as PNG bytes, or undefined. */
export async function brandImage(manager: EntityManager, id: string, which: 'logo' | 'icon'): Promise<Buffer | undefined> {
  const [row] = await readRows<{ image: string | null }>(manager, `SELECT ${which === 'logo' ? 'logo' : 'icon'} AS image FROM branding WHERE id = ?`, [id]);
  return row?.image ? Buffer.from(row.image, 'base64') : undefined;
}

export interface BrandWrite {
  id: string;
  orgId: string | null;
  document: BrandingDocument;
  logo?: Buffer;
  icon?: Buffer;
  revision: string;
}

/** Replaces a brand inside the caller's transaction. */
export async function writeBrand(manager: EntityManager, brand: BrandWrite): Promise<void> {
  await removeBrand(manager, brand.id);
  await manager.query('INSERT INTO branding (id, org_id, document, logo, icon, revision, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    brand.id,
    brand.orgId,
    JSON.stringify(brand.document),
    brand.logo?.toString('base64') ?? null,
    brand.icon?.toString('base64') ?? null,
    brand.revision,
    Date.now(),
  ]);
}

/** Removes a brand; true when there was one. */
export async function removeBrand(manager: EntityManager, id: string): Promise<boolean> {
  const found = await readRows<{ id: string }>(manager, 'SELECT id FROM branding WHERE id = ?', [id]);
  if (found.length === 0) return false;
  await manager.query('DELETE FROM branding WHERE id = ?', [id]);
  return true;
}

/** An organization's brands (its own and its applications'), removed with it. */
export async function removeBrandsOf(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('DELETE FROM branding WHERE org_id = ?', [orgId]);
}
