import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const BATCH = 1_000;
const SEARCH_TEXT_LENGTH = 400;
/** Joins the fields, so that no search matches across two of them. */
const SEARCH_SEPARATOR = '\n';

/**
 * The management API's user search (docs/product-rules.md, "API"): `users.search_text` holds the user
 * name, e-mail and names case-folded (src/users/rules/user-search.ts), and `ix_users_org_search` covers
 * "users of an organization whose text contains …, in user-name order". A substring has no index range,
 * but the search then reads this narrow index instead of every user row, and a page comes in index order
 * without a sort. (org_id, user_name_lower, search_text) is 2,876 bytes in utf8mb4, within MariaDB's
 * 3,072-byte key. Existing rows are filled here by the text the service wrote when this migration was made.
 */
export class UserSearch1763701900000 implements MigrationInterface {
  name = 'UserSearch1763701900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn({ name: 'search_text', type: 'varchar', length: String(SEARCH_TEXT_LENGTH), isNullable: true }));
    for (let after = ''; ; ) {
      const rows: Record<string, string | null>[] = await runner.query(
        'SELECT id, user_name, given_name, family_name, display_name, email FROM users WHERE id > ? ORDER BY id LIMIT ?',
        [after, BATCH],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        const text = searchTextAtThisVersion({
          userName: row.user_name ?? '',
          givenName: row.given_name,
          familyName: row.family_name,
          displayName: row.display_name,
          email: row.email,
        });
        await runner.query('UPDATE users SET search_text = ? WHERE id = ?', [text, row.id]);
      }
      after = rows[rows.length - 1].id as string;
    }
    await runner.createIndex('users', new TableIndex({ name: 'ix_users_org_search', columnNames: ['org_id', 'user_name_lower', 'search_text'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('users', 'ix_users_org_search');
    await runner.dropColumn('users', 'search_text');
  }
}

interface SearchableRow {
  userName: string;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  email: string | null;
}

/**
 * `searchText` of src/users/rules/user-search.ts (with `foldCase` of src/common/text/case-fold.ts) as they were
 * when this migration was written, copied rather than imported: a migration must do the same on every database
 * whatever the live rule becomes later; a change of the rule brings its own migration to refill the column.
 */
function searchTextAtThisVersion(user: SearchableRow): string {
  const names = [user.givenName, user.familyName].filter((n): n is string => !!n);
  const display = user.displayName && user.displayName !== names.join(' ') ? user.displayName : null;
  const fields = [user.userName, user.email, ...names, display].filter((f): f is string => !!f);
  return fields.join(SEARCH_SEPARATOR).toLowerCase().replace(/ς/g, 'σ').slice(0, SEARCH_TEXT_LENGTH);
}
