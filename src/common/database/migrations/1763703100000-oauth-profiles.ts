import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-application settings of the OAuth and OIDC profiles (docs/oauth-profiles.md): PAR required, signed request objects
 * required (RFC 9101), the JARM signing algorithm, DPoP-bound access tokens (RFC 9449) and back-channel logout (OIDC
 * Back-Channel Logout 1.0 §2.2). Off, or absent, for every existing application: none asked for them.
 */
export class OauthProfiles1763703100000 implements MigrationInterface {
  name = 'OauthProfiles1763703100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumns('applications', [
      new TableColumn({ name: 'require_par', type: 'boolean', isNullable: false, default: false }),
      new TableColumn({ name: 'require_signed_request_object', type: 'boolean', isNullable: false, default: false }),
      new TableColumn({ name: 'authorization_signed_response_alg', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'dpop_bound_access_tokens', type: 'boolean', isNullable: false, default: false }),
      new TableColumn({ name: 'backchannel_logout_uri', type: 'varchar', length: '2000', isNullable: true }),
      new TableColumn({ name: 'backchannel_logout_session_required', type: 'boolean', isNullable: false, default: false }),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const column of [
      'backchannel_logout_session_required',
      'backchannel_logout_uri',
      'dpop_bound_access_tokens',
      'authorization_signed_response_alg',
      'require_signed_request_object',
      'require_par',
    ]) {
      await runner.dropColumn('applications', column);
    }
  }
}
