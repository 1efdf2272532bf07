import { Injectable } from '@nestjs/common';
import { SecretHasher, generateSecret } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { organizationExists } from '../../users/queries/organizations.js';
import { AgentRegistrationTokenEntity } from './dynamic-registration.entities.js';

/** How long an initial access token lives when no `expiresIn` is given, and at most (seconds). */
export const REGISTRATION_TOKEN_DEFAULT_SECONDS = 86_400;
export const REGISTRATION_TOKEN_MIN_SECONDS = 60;
export const REGISTRATION_TOKEN_MAX_SECONDS = 30 * 86_400;
/** How many clients one token registers when no `uses` is given, and at most. */
export const REGISTRATION_TOKEN_DEFAULT_USES = 1;
export const REGISTRATION_TOKEN_MAX_USES = 100;

/**
 * Initial access tokens (RFC 7591 §3) an organization owner hands to an agent's operator: each registers as many
 * clients as it was issued for (one by default), bound to the organization, while it lives (docs/agents.md,
 * "Dynamic registration"). Stored as keyed hashes only.
 */
@Injectable()
export class AgentRegistrationTokens {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
  ) {}

  async issue(
    editorUserId: string | null,
    orgId: string,
    expiresInSeconds = REGISTRATION_TOKEN_DEFAULT_SECONDS,
    uses = REGISTRATION_TOKEN_DEFAULT_USES,
  ): Promise<{ token: string; expiresAt: Date; uses: number }> {
    const token = generateSecret();
    const id = newId();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000);
    await this.uow.run(async (manager) => {
      if (!(await organizationExists(manager, orgId))) throw DomainError.notFound('organization');
      await manager.insert(AgentRegistrationTokenEntity, { id, orgId, tokenHash: this.hasher.hash(token), expiresAt, usesLeft: uses, createdAt: now });
      await this.events.push(manager, {
        type: 'org.agent.registration.token.added',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId,
        payload: { tokenId: id, expirationDate: expiresAt.toISOString(), uses },
      });
    });
    return { token, expiresAt, uses };
  }
}
