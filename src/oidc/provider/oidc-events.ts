import type { Logger } from '@nestjs/common';
import type Provider from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import { UserEntity } from '../../users/entities/user.entity.js';

export interface EventDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  events: EventStore;
  logger: Logger;
}

/**
 * Audit events for what oidc-provider changes itself (DESIGN §3): revoked tokens and grants, ended
 * sessions. The provider commits those rows on its own, so each event is its own transaction right
 * after; payloads name kinds and clients, never a token.
 */
export function recordProviderEvents(provider: Provider, deps: EventDeps): void {
  const record = (type: EventType, userId: string | undefined, payload: Record<string, string>) => {
    if (!userId) return;
    void write(deps, type, userId, payload).catch((error: unknown) => deps.logger.error(`could not record ${type}: ${String(error)}`));
  };
  for (const kind of ['access_token', 'client_credentials', 'refresh_token']) {
    provider.on(`${kind}.destroyed`, (token: { accountId?: string; clientId: string; kind: string }) => {
      const route = (provider.constructor as { ctx?: { oidc?: { route?: string } } }).ctx?.oidc?.route;
      if (route !== 'revocation') return;
      record('user.token.revoked', token.accountId ?? token.clientId, { tokenKind: token.kind, clientId: token.clientId, reason: 'revocation' });
    });
  }
  provider.on('grant.revoked', (ctx: { oidc?: { route?: string; entities?: { Client?: { clientId: string } }; session?: { accountId?: string }; account?: { accountId: string } } }, grantId: string) => {
    const accountId = ctx.oidc?.account?.accountId ?? ctx.oidc?.session?.accountId;
    record('user.token.revoked', accountId, { grantId, clientId: ctx.oidc?.entities?.Client?.clientId ?? '', reason: ctx.oidc?.route ?? 'grant' });
  });
  provider.on('end_session.success', (ctx: { oidc?: { session?: { accountId?: string }; entities?: { Session?: { accountId?: string } } } }) => {
    const accountId = ctx.oidc?.entities?.Session?.accountId ?? ctx.oidc?.session?.accountId;
    record('session.terminated', accountId, { reason: 'end_session' });
  });
}

async function write(deps: EventDeps, type: EventType, userId: string, payload: Record<string, string>): Promise<void> {
  const user = await deps.dataSource.getRepository(UserEntity).findOne({ where: { id: userId }, select: { id: true, orgId: true } });
  if (!user) return;
  await deps.uow.run((manager) =>
    deps.events.push(manager, { type, aggregateType: 'user', aggregateId: user.id, resourceOwner: user.orgId, editorUserId: user.id, payload }),
  );
}
