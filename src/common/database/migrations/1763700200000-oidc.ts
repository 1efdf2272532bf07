import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * Storage of the OpenID Connect provider: the adapter's payloads (tokens, codes, sessions, grants,
 * interactions) keyed by a keyed hash of their id, so a database dump holds no usable token, code or
 * session cookie; and the signing keys, whose private parts are encrypted with the master key.
 * Same conventions as the initial schema: explicit names, indices inside CREATE TABLE.
 */
export class Oidc1763700200000 implements MigrationInterface {
  name = 'Oidc1763700200000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    const engine = mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    const str = (name: string, length: number, nullable = true): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    const ts = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });
    const pk = (c: TableColumnOptions, table: string): TableColumnOptions => ({ ...c, isPrimary: true, primaryKeyConstraintName: `pk_${table}` });
    const index = (name: string, columnNames: string[]) => new TableIndex({ name, columnNames });

    await runner.createTable(
      new Table({
        name: 'oidc_payloads',
        engine,
        columns: [
          pk(str('model', 40, false), 'oidc_payloads'),
          pk(str('id_hash', 64, false), 'oidc_payloads'),
          { name: 'payload', type: mysql ? 'mediumtext' : 'text', isNullable: false },
          str('grant_id', 64),
          str('uid', 64),
          str('user_code', 64),
          ts('expires_at', true),
          ts('consumed_at', true),
        ],
        indices: [
          index('ix_oidc_payloads_grant', ['grant_id']),
          index('ix_oidc_payloads_uid', ['uid']),
          index('ix_oidc_payloads_user_code', ['user_code']),
          index('ix_oidc_payloads_expires', ['expires_at']),
        ],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'signing_keys',
        engine,
        columns: [
          pk(str('id', 64, false), 'signing_keys'),
          str('alg', 16, false),
          { name: 'public_jwk', type: 'text', isNullable: false },
          { name: 'private_jwk_encrypted', type: 'text', isNullable: false },
          ts('created_at'),
          // Set when a newer key replaces it; it stays published until every token it signed expired.
          ts('retired_at', true),
          ts('publish_until', true),
        ],
        indices: [index('ix_signing_keys_created', ['created_at'])],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('signing_keys', true, true, true);
    await runner.dropTable('oidc_payloads', true, true, true);
  }
}
