import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { IntervalTask } from '../../common/operations/interval-task.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { ProviderHolder } from './provider.holder.js';

/**
 * Every process switches to a rotated or newly signing key within one poll (`KEY_POLL_MS`, README; the key
 * schedule: docs/product-rules.md, "API"): each poll keeps the schedule (the next key published ahead of its time,
 * superseded keys retired) and has the provider rebuilt when the key set changed. Started once the provider is built.
 */
@Injectable()
export class ProviderKeyPoll implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('oidc');
  private readonly task = new IntervalTask(
    async () => {
      await this.keys.ensureSchedule();
      await this.holder.refreshIfChanged();
    },
    (error) => this.logger.error(`key check failed: ${String(error)}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: SigningKeysService,
    private readonly holder: ProviderHolder,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.config.keyPollMs);
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
