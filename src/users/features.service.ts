import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { FEATURE_NAMES, FeatureEntity } from './entities/feature.entity.js';
import type { FeatureName } from './entities/feature.entity.js';
import { INSTANCE_ID } from './entities/instance.entity.js';

type Features = Record<FeatureName, boolean>;

/** Instance feature flags (docs/product-rules.md, "Domain"). Read on use, never cached, so every process agrees at once. */
@Injectable()
export class FeaturesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async get(): Promise<Features> {
    const rows = await this.dataSource.getRepository(FeatureEntity).find();
    return toFeatures(rows);
  }

  async isEnabled(name: FeatureName): Promise<boolean> {
    return (await this.dataSource.getRepository(FeatureEntity).findOneBy({ name }))?.enabled ?? false;
  }

  /** Sets the given flags; unchanged ones write no event. Returns the resulting state. */
  set(editorUserId: string | null, changes: Partial<Features>): Promise<Features> {
    return this.uow.run(async (manager) => {
      const current = toFeatures(await manager.find(FeatureEntity));
      for (const name of FEATURE_NAMES) {
        const enabled = changes[name];
        if (enabled === undefined || enabled === current[name]) continue;
        await manager.upsert(FeatureEntity, { name, enabled, changedAt: new Date() }, ['name']);
        await this.events.push(manager, {
          type: 'instance.feature.set',
          aggregateType: 'instance',
          aggregateId: INSTANCE_ID,
          resourceOwner: INSTANCE_ID,
          editorUserId,
          payload: { feature: name, enabled },
        });
        current[name] = enabled;
      }
      return current;
    });
  }
}

function toFeatures(rows: FeatureEntity[]): Features {
  const features = Object.fromEntries(FEATURE_NAMES.map((n) => [n, false])) as Features;
  for (const row of rows) if ((FEATURE_NAMES as readonly string[]).includes(row.name)) features[row.name] = Boolean(row.enabled);
  return features;
}
