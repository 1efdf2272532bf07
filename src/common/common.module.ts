import { Global, Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessGuard } from './auth/access.guard.js';
import { APP_CONFIG } from './config/config.token.js';
import type { AppConfig } from './config/config.js';
import { CryptoModule } from './crypto/crypto.module.js';
import { BoundedReads } from './database/bounded-reads.js';
import { DatabaseAvailability } from './database/database-availability.js';
import { dataSourceOptions } from './database/data-source.js';
import { DatabaseNodes, onHealthyNode } from './database/database-nodes.js';
import type { EntityList } from './database/data-source.js';
import { OrgResources } from './database/org-resources.js';
import { UnitOfWork } from './database/unit-of-work.js';
import { WalCheckpointer } from './database/wal-checkpointer.js';
import { GaleraSessions } from './database/galera.js';
import { EventFeed } from './events/event-feed.js';
import { EventStore } from './events/event-store.js';
import { AppLogger } from './http/logging.js';
import { SessionEnds } from './auth/session-ends.js';
import { BrowserSessionSteps } from './auth/browser-session-steps.js';

/** Configuration, database, events, crypto, logging and the global access guard. */
@Global()
@Module({})
export class CommonModule {
  static forRoot(config: AppConfig, entities: EntityList): DynamicModule {
    return {
      module: CommonModule,
      imports: [
        // With a list of hosts, the first healthy node (docs/high-availability.md).
        TypeOrmModule.forRootAsync({ useFactory: async () => dataSourceOptions(await onHealthyNode(config.database), entities) }),
        PassportModule,
        CryptoModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: AppLogger, useValue: new AppLogger(config) },
        UnitOfWork,
        EventStore,
        EventFeed,
        DatabaseAvailability,
        OrgResources,
        WalCheckpointer,
        GaleraSessions,
        DatabaseNodes,
        BoundedReads,
        SessionEnds,
        BrowserSessionSteps,
        { provide: APP_GUARD, useClass: AccessGuard },
      ],
      exports: [
        APP_CONFIG,
        AppLogger,
        UnitOfWork,
        EventStore,
        EventFeed,
        DatabaseAvailability,
        OrgResources,
        WalCheckpointer,
        BoundedReads,
        SessionEnds,
        BrowserSessionSteps,
      ],
    };
  }
}
