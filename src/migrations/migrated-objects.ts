import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { MigratedObjectEntity } from './migrated-object.entity.js';

/** What a source object became here, and the fingerprint of what the source said then. */
export interface Mapped {
  targetId: string;
  fingerprint: string;
}

/** The migration's id map (migrated_objects): one source container (a Keycloak realm) and kind at a time. */
export class MigratedObjects {
  constructor(
    private readonly dataSource: DataSource,
    readonly source: string,
    readonly container: string,
  ) {}

  async find(kind: string, sourceIds: string[]): Promise<Map<string, Mapped>> {
    const found = new Map<string, Mapped>();
    for (let i = 0; i < sourceIds.length; i += 500) {
      const chunk = sourceIds.slice(i, i + 500);
      const rows = await this.dataSource
        .getRepository(MigratedObjectEntity)
        .findBy({ source: this.source, container: this.container, kind, sourceId: In(chunk) });
      // MariaDB's utf8mb4_bin is PAD SPACE: only an exact id is the same object.
      const wanted = new Set(chunk);
      for (const row of rows) if (wanted.has(row.sourceId)) found.set(row.sourceId, { targetId: row.targetId, fingerprint: row.fingerprint });
    }
    return found;
  }

  /** Every object of a kind this container brought in earlier: target id by source id. */
  async all(kind: string): Promise<Map<string, string>> {
    const rows = await this.dataSource.getRepository(MigratedObjectEntity).findBy({ source: this.source, container: this.container, kind });
    return new Map(rows.filter((r) => r.container === this.container).map((r) => [r.sourceId, r.targetId]));
  }

  /** Upserts in statements of 500 rows: one round trip per row is most of a large migration's time on MariaDB. */
  async remember(manager: EntityManager, kind: string, items: { sourceId: string; targetId: string; fingerprint: string }[]): Promise<void> {
    const now = new Date();
    for (let i = 0; i < items.length; i += 500) {
      await manager.upsert(
        MigratedObjectEntity,
        items.slice(i, i + 500).map((item) => ({
          source: this.source,
          container: this.container,
          kind,
          sourceId: item.sourceId,
          targetId: item.targetId,
          fingerprint: item.fingerprint,
          changedAt: now,
        })),
        ['source', 'container', 'kind', 'sourceId'],
      );
    }
  }
}

/** SHA-256 of the mapped object: equal fingerprints, nothing to change. Hashes of hashes only, never a value in clear. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
