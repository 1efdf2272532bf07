import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * The foundation schema. Written with TypeORM's schema API so one migration serves SQLite and MySQL;
 * every primary key, index, unique constraint and foreign key carries an explicit name.
 * Text compares byte-wise on both databases (MySQL tables use utf8mb4_bin, SQLite's default is BINARY);
 * case-insensitive lookups go through the `*_lower` columns.
 */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    // Indices and foreign keys go into the CREATE TABLE: added afterwards, SQLite would rebuild the table.
    const table = (name: string, columns: TableColumnOptions[], primary: string[], extra: { indices?: TableIndex[]; foreignKeys?: TableForeignKey[] } = {}) =>
      new Table({
        name,
        columns: columns.map((c) => (primary.includes(c.name) ? { ...c, isPrimary: true, primaryKeyConstraintName: `pk_${name}` } : c)),
        indices: extra.indices,
        foreignKeys: extra.foreignKeys,
        // TypeORM has no table charset option; the engine clause is where MySQL takes it.
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
      });
    const id = (name = 'id'): TableColumnOptions => ({ name, type: 'varchar', length: '64' });
    const str = (name: string, length: number, nullable = true): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
    const int = (name: string, dflt?: number): TableColumnOptions => ({ name, type: 'int', default: dflt });
    const bool = (name: string): TableColumnOptions => ({ name, type: 'boolean', default: mysql ? 0 : false });
    const ts = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });

    const index = (name: string, columnNames: string[]) => new TableIndex({ name, columnNames });
    const unique = (name: string, columnNames: string[]) => new TableIndex({ name, columnNames, isUnique: true });

    await runner.createTable(
      table(
        'instance',
        [
          id(),
          str('default_language', 35, false),
          int('lockout_max_attempts'),
          int('password_min_length'),
          int('access_token_lifetime'),
          int('id_token_lifetime'),
          int('refresh_token_idle_lifetime'),
          int('refresh_token_absolute_lifetime'),
          ts('created_at'),
        ],
        ['id'],
      ),
    );

    await runner.createTable(table('features', [str('name', 64, false), bool('enabled'), ts('changed_at')], ['name']));

    await runner.createTable(
      table('organizations', [id(), str('name', 200, false), str('primary_domain', 255, false), ts('created_at'), ts('changed_at')], ['id'], {
        indices: [unique('uq_organizations_primary_domain', ['primary_domain'])],
      }),
    );

    await runner.createTable(
      table(
        'users',
        [
          id(),
          id('org_id'),
          str('type', 16, false),
          str('user_name', 255, false),
          str('user_name_lower', 255, false),
          str('state', 16, false),
          str('external_id', 255),
          str('given_name', 200),
          str('family_name', 200),
          str('display_name', 255),
          str('nick_name', 200),
          str('preferred_language', 35),
          str('gender', 32),
          str('email', 320),
          str('email_lower', 320),
          bool('email_verified'),
          str('phone', 40),
          bool('phone_verified'),
          str('password_hash', 255),
          bool('password_change_required'),
          int('failed_password_checks', 0),
          str('description', 500),
          str('access_token_type', 16),
          str('title', 200),
          str('user_type', 100),
          str('locale', 35),
          str('timezone', 64),
          str('profile_url', 1000),
          // MySQL's TEXT stops at 64 KiB; SCIM documents with photos or many addresses may not.
          { ...text('scim_attributes', true), type: mysql ? 'mediumtext' : 'text' },
          int('version', 1),
          ts('created_at'),
          ts('changed_at'),
        ],
        ['id'],
        {
          foreignKeys: [orgForeignKey('fk_users_org')],
          indices: [
            unique('uq_users_org_user_name', ['org_id', 'user_name_lower']),
            index('ix_users_org_external_id', ['org_id', 'external_id']),
            index('ix_users_org_email', ['org_id', 'email_lower']),
            index('ix_users_org_created', ['org_id', 'created_at', 'id']),
            index('ix_users_user_name', ['user_name_lower']),
          ],
        },
      ),
    );

    await runner.createTable(
      table(
        'memberships',
        [id('user_id'), str('scope_type', 16, false), id('scope_id'), str('roles', 255, false), ts('changed_at')],
        ['user_id', 'scope_type', 'scope_id'],
        { foreignKeys: [userForeignKey('fk_memberships_user')], indices: [index('ix_memberships_scope', ['scope_type', 'scope_id'])] },
      ),
    );

    await runner.createTable(
      table('projects', [id(), id('org_id'), str('name', 200, false), ts('created_at'), ts('changed_at')], ['id'], {
        foreignKeys: [orgForeignKey('fk_projects_org')],
        indices: [index('ix_projects_org', ['org_id'])],
      }),
    );

    await runner.createTable(
      table(
        'applications',
        [
          id(),
          id('org_id'),
          id('project_id'),
          str('name', 200, false),
          str('kind', 8, false),
          str('client_id', 100, false),
          str('client_secret_hash', 100),
          str('auth_method', 32, false),
          text('redirect_uris'),
          text('post_logout_redirect_uris'),
          text('response_types'),
          text('grant_types'),
          str('access_token_type', 16, false),
          bool('id_token_userinfo_assertion'),
          bool('dev_mode'),
          ts('created_at'),
          ts('changed_at'),
        ],
        ['id'],
        {
          foreignKeys: [
            orgForeignKey('fk_applications_org'),
            new TableForeignKey({
              name: 'fk_applications_project',
              columnNames: ['project_id'],
              referencedTableName: 'projects',
              referencedColumnNames: ['id'],
              onDelete: 'CASCADE',
            }),
          ],
          indices: [unique('uq_applications_client_id', ['client_id']), index('ix_applications_project', ['project_id'])],
        },
      ),
    );

    await runner.createTable(
      table(
        'public_keys',
        [id(), str('owner_type', 16, false), id('owner_id'), id('org_id'), text('public_key'), ts('expires_at', true), ts('created_at')],
        ['id'],
        { indices: [index('ix_public_keys_owner', ['owner_type', 'owner_id'])] },
      ),
    );

    await runner.createTable(
      table('machine_secrets', [id('user_id'), str('secret_hash', 100, false), ts('created_at')], ['user_id'], {
        foreignKeys: [userForeignKey('fk_machine_secrets_user')],
      }),
    );

    await runner.createTable(
      table('personal_access_tokens', [id(), id('user_id'), id('org_id'), str('token_hash', 100, false), ts('expires_at', true), ts('created_at')], ['id'], {
        foreignKeys: [userForeignKey('fk_personal_access_tokens_user')],
        indices: [unique('uq_personal_access_tokens_hash', ['token_hash']), index('ix_personal_access_tokens_user', ['user_id'])],
      }),
    );

    await runner.createTable(
      table(
        'events',
        [
          {
            name: 'position',
            // SQLite only auto-increments a column declared exactly INTEGER PRIMARY KEY.
            type: mysql ? 'bigint' : 'integer',
            isGenerated: true,
            generationStrategy: 'increment',
          },
          id(),
          str('type', 100, false),
          str('aggregate_type', 64, false),
          id('aggregate_id'),
          id('resource_owner'),
          { ...id('editor_user_id'), isNullable: true },
          text('payload'),
          ts('created_at'),
        ],
        ['position'],
        {
          indices: [
            unique('uq_events_id', ['id']),
            index('ix_events_type', ['type', 'position']),
            index('ix_events_aggregate', ['aggregate_id', 'position']),
            index('ix_events_resource_owner', ['resource_owner', 'position']),
            index('ix_events_editor', ['editor_user_id', 'position']),
            index('ix_events_created_at', ['created_at']),
          ],
        },
      ),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const name of [
      'events',
      'personal_access_tokens',
      'machine_secrets',
      'public_keys',
      'applications',
      'projects',
      'memberships',
      'users',
      'organizations',
      'features',
      'instance',
    ]) {
      await runner.dropTable(name, true, true, true);
    }
  }
}

function userForeignKey(name: string): TableForeignKey {
  return new TableForeignKey({ name, columnNames: ['user_id'], referencedTableName: 'users', referencedColumnNames: ['id'], onDelete: 'CASCADE' });
}

function orgForeignKey(name: string): TableForeignKey {
  return new TableForeignKey({ name, columnNames: ['org_id'], referencedTableName: 'organizations', referencedColumnNames: ['id'] });
}
