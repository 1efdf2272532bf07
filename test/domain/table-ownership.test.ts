import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository, from dist/test/domain/. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHECK = join(ROOT, 'scripts/check-table-ownership.mjs');

function check(root?: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [CHECK, ...(root ? [root] : [])], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** SQL on the users domain's tables lives in src/users only (docs/architecture.md, "Data"); CI runs this check. */
describe('table ownership check', () => {
  const temp = mkdtempSync(join(tmpdir(), 'portcullis-ownership-'));
  after(() => rmSync(temp, { recursive: true, force: true }));

  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(join(temp, 'tree-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it('passes on this repository', () => {
    const { status, output } = check();
    assert.equal(status, 0, output);
  });

  it('names every file and line outside src/users whose SQL names a users table, whatever the case or quoting', () => {
    const root = tree({
      'src/oidc/bad.ts': "const a = 1;\nconst sql = 'SELECT id FROM users WHERE id = ?';\n",
      'src/scim/worse.ts': 'const q = `delete from `organizations` where id = ?`;\nconst r = "UPDATE \\"public_keys\\" SET x = 1";\n',
      'src/common/joins.ts': "const j = 'LEFT JOIN instance i ON 1 = 1';\n",
    });
    const { status, output } = check(root);
    assert.equal(status, 1, output);
    assert.match(output, /src\/oidc\/bad\.ts:2: users/);
    assert.match(output, /src\/scim\/worse\.ts:1: organizations/);
    assert.match(output, /src\/scim\/worse\.ts:2: public_keys/);
    assert.match(output, /src\/common\/joins\.ts:1: instance/);
  });

  it('names TypeORM reads, writes, joins and relations on an entity of src/users outside it', () => {
    const entity = "import { Entity } from 'typeorm';\n@Entity({ name: 'users' })\nexport class UserEntity {}\n";
    const root = tree({
      'src/users/entities/user.entity.ts': entity,
      'src/users/queries/ok.ts': 'await manager.findOneBy(UserEntity, { id });\n',
      'src/oidc/join.ts': "qb\n  .innerJoin(\n    UserEntity, 'person', 'person.id = c.userId')\n",
      'src/scim/repo.ts': 'const a = dataSource.getRepository(UserEntity);\nawait manager.update<UserEntity>(UserEntity, { id }, {});\n',
      'src/webhooks/relation.ts': '  @ManyToOne(() => UserEntity)\n  user: UserEntity;\n',
      'src/login/typed.ts': 'const columns = dataSource.getMetadata(UserEntity).columns;\nconst u = new UserEntity();\n// manager.find(UserEntity) in prose\n',
    });
    const { status, output } = check(root);
    assert.equal(status, 1, output);
    assert.match(output, /src\/oidc\/join\.ts:2: UserEntity/);
    assert.match(output, /src\/scim\/repo\.ts:1: UserEntity/);
    assert.match(output, /src\/scim\/repo\.ts:2: UserEntity/);
    assert.match(output, /src\/webhooks\/relation\.ts:1: UserEntity/);
    assert.doesNotMatch(output, /src\/users\/queries\/ok\.ts/);
    assert.doesNotMatch(output, /src\/login\/typed\.ts/, 'metadata, an instance and prose reach no rows');
  });

  it('leaves the owner, migrations, other tables and prose in comments alone', () => {
    const root = tree({
      'src/users/queries/ok.ts': "const sql = 'SELECT id FROM users';\n",
      'src/common/database/migrations/1-init.ts': "const sql = 'CREATE TABLE users (id TEXT)';\n",
      'src/oidc/payloads.ts': "const sql = 'DELETE FROM oidc_payloads WHERE id = ?';\n// removed from users as they leave\n * read from users on every use\n",
    });
    const { status, output } = check(root);
    assert.equal(status, 0, output);
  });
});
