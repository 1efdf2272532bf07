import type { EntityManager } from 'typeorm';
import { readRows } from '../common/database/statements.js';
import type { BrandingDocument } from './branding-document.js';

/** The rows of `branding_previews`, which this module owns: a draft by its token's hash, until it expires. */
export interface PreviewRow {
  scope: string;
  document: BrandingDocument;
  hasLogo: boolean;
}

/** How many drafts of one brand are kept at once: a live editor makes one per pause in typing; older ones go. */
const KEPT_PER_SCOPE = 20;

export async function insertPreview(
  manager: EntityManager,
  row: { tokenHash: string; scope: string; orgId: string | null; document: BrandingDocument; logo?: Buffer; expiresAt: number },
): Promise<void> {
  await manager.query('DELETE FROM branding_previews WHERE expires_at < ?', [Date.now()]);
  const older = await readRows<{ token_hash: string }>(manager, 'SELECT token_hash FROM branding_previews WHERE scope = ? ORDER BY expires_at DESC', [
    row.scope,
  ]);
  const drop = older.slice(KEPT_PER_SCOPE - 1).map((r) => r.token_hash);
  if (drop.length > 0) await manager.query(`DELETE FROM branding_previews WHERE token_hash IN (${drop.map(() => '?').join(', ')})`, drop);
  await manager.query('INSERT INTO branding_previews (token_hash, scope, org_id, document, logo, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
    row.tokenHash,
    row.scope,
    row.orgId,
    JSON.stringify(row.document),
    row.logo?.toString('base64') ?? null,
    row.expiresAt,
  ]);
}

/** A draft that has not expired, without its logo. */
export async function previewRow(manager: EntityManager, tokenHash: string): Promise<PreviewRow | undefined> {
  const [row] = await readRows<{ scope: string; document: string; has_logo: number | string }>(
    manager,
    'SELECT scope, document, CASE WHEN logo IS NULL THEN 0 ELSE 1 END AS has_logo FROM branding_previews WHERE token_hash = ? AND expires_at >= ?',
    [tokenHash, Date.now()],
  );
  return row ? { scope: row.scope, document: JSON.parse(row.document) as BrandingDocument, hasLogo: Number(row.has_logo) === 1 } : undefined;
}

/** A draft's re-encoded logo (PNG bytes), if it has not expired. */
export async function previewLogo(manager: EntityManager, tokenHash: string): Promise<Buffer | undefined> {
  const [row] = await readRows<{ logo: string | null }>(manager, 'SELECT logo FROM branding_previews WHERE token_hash = ? AND expires_at >= ?', [
    tokenHash,
    Date.now(),
  ]);
  return row?.logo ? Buffer.from(row.logo, 'base64') : undefined;
}

/** An organization's drafts, removed with it. */
export async function removePreviewsOf(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('DELETE FROM branding_previews WHERE org_id = ?', [orgId]);
}
