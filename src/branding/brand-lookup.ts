import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Locale } from '../texts/locales.js';
import type { TextOverrides } from '../texts/texts.js';
import type { BrandingDocument } from './branding-document.js';
import { brandRows } from './branding.store.js';
import type { BrandRow } from './branding.store.js';

/** The brand a page shows: each field from the most specific layer that sets it (application, organization, instance). */
export interface Brand {
  /** Identifies the layers read (query of the stylesheet's and logo's URLs). */
  orgId?: string;
  appId?: string;
  document: BrandingDocument;
  /** The layer whose logo shows, if any. */
  logoFrom?: string;
  /** Changes with any layer's revision: the stylesheet's and logo's URLs carry it. */
  version: string;
  /** A preview link's token: the draft's stylesheet and logo are found by it (branding-preview.ts). */
  preview?: string;
}

/**
 * How long a process keeps what it read (docs/branding.md, "Applying a change"): a change reaches the next page of
 * every process within this, with no message between processes and one small read per layer set at most twice a
 * second.
 */
export const BRAND_FRESHNESS_MS = 500;

const EMPTY: Brand = { document: {}, version: '0' };

/** Reads and keeps, briefly, the layers of the brand a page shows. */
@Injectable()
export class BrandLookup {
  private readonly kept = new Map<string, { at: number; brand: Promise<Brand> }>();

  constructor(private readonly dataSource: DataSource) {}

  /** The brand of a page for this organization and application (both optional: the instance's alone). */
  brandOf(orgId?: string, appId?: string): Promise<Brand> {
    const key = `${orgId ?? ''}\u0000${appId ?? ''}`;
    const now = Date.now();
    const hit = this.kept.get(key);
    if (hit && now - hit.at < BRAND_FRESHNESS_MS) return hit.brand;
    const brand = this.read(orgId, appId);
    // A failed read is not kept: the next page asks again.
    brand.catch(() => this.kept.delete(key));
    if (this.kept.size > 10_000) this.kept.clear();
    this.kept.set(key, { at: now, brand });
    return brand;
  }

  private async read(orgId?: string, appId?: string): Promise<Brand> {
    const ids = ['instance', ...(orgId ? [`org:${orgId}`] : []), ...(appId ? [`app:${appId}`] : [])];
    const rows = await brandRows(this.dataSource.manager, ids);
    if (rows.length === 0) return { ...EMPTY, orgId, appId };
    // Least specific first, so each later layer's fields replace the earlier's.
    const layers = ids.map((id) => rows.find((row) => row.id === id)).filter((row): row is BrandRow => row !== undefined);
    const document: BrandingDocument = Object.assign({}, ...layers.map((layer) => layer.document));
    const logoFrom = [...layers].reverse().find((layer) => layer.hasLogo)?.id;
    return { orgId, appId, document, logoFrom, version: layers.map((layer) => layer.revision).join('.') };
  }
}

/** An organization's texts in one language, if it has any. */
export function overridesOf(brand: Brand | undefined, locale: Locale): TextOverrides | undefined {
  return brand?.document.texts?.[locale];
}
