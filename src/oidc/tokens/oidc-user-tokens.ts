import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { deleteGrantsTiedToUser } from '../adapter/exchange-ties.js';

/**
 * USER_TOKENS for the users domain: deletes every stored OIDC object of the user (sessions, grants,
 * codes, opaque and JWT access tokens, refresh tokens) in the caller's transaction. JWT access tokens
 * are stored too (jwt-access-tokens.ts), so they stop being honoured at once like opaque ones.
 */
@Injectable()
export class OidcUserTokens implements UserTokens {
  async revokeAll(manager: EntityManager, userId: string): Promise<void> {
    // A token exchanged from this user's grants (an impersonation by this user) ends with them.
    await deleteGrantsTiedToUser(manager, userId);
    await manager.query('DELETE FROM oidc_payloads WHERE account_id = ?', [userId]);
  }
}
