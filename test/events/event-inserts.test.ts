import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What inserts into `events`: raw SQL, the multi-row insert helper, or the column list meant for raw statements. */
const INSERTS_EVENTS = /INTO\s+[`"]?events\b|insertValues\([^)]*['"]events['"]|\bEVENT_COLUMNS\b/;

/**
 * Every path that inserts events, and how it takes the event positions first
 * (src/common/events/event-positions.ts). A new path fails here until it does the same and is added.
 */
const REVIEWED: Record<string, RegExp> = {
  // EventStore.push: takeEventPositions before insertValues.
  'src/common/events/event-store.ts': /await takeEventPositions\(manager\);\s*await insertValues\(manager, 'events'/,
  // The statement is run only through UnitOfWork.writeEvents (checked below for its callers).
  'src/users/queries/user-events.ts': /export function userEventStatement/,
};

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) yield path;
  }
}

describe('events: every insert into events takes the event positions first', () => {
  const files = [...sources(join(ROOT, 'src'))].map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

  it('inserts events only on reviewed paths, each taking the positions', () => {
    const inserting = files.filter((f) => !f.path.includes('/migrations/') && INSERTS_EVENTS.test(f.text)).map((f) => f.path);
    assert.deepEqual(
      inserting.sort(),
      Object.keys(REVIEWED).sort(),
      'a new path inserts events: take the event positions first (event-positions.ts), then add it here',
    );
    for (const f of files) if (REVIEWED[f.path]) assert.match(f.text, REVIEWED[f.path], f.path);
  });

  it('runs the statements of user-events.ts only through UnitOfWork.writeEvents', () => {
    for (const f of files.filter((f) => f.text.includes('userEventStatement(') && !f.path.endsWith('user-events.ts'))) {
      assert.doesNotMatch(f.text, /uow\.write\(sql/, `${f.path} writes an event statement without taking the positions`);
      assert.match(f.text, /uow\.writeEvents\(sql, parameters\)/, f.path);
    }
  });

  it('writeEvents takes the positions before the statement', () => {
    const uow = files.find((f) => f.path === 'src/common/database/unit-of-work.ts')!.text;
    assert.match(
      uow,
      /writeEvents\(sql: string, parameters: unknown\[\]\)[\s\S]*?await takeEventPositions\(manager\);\s*return manager\.query\(sql, parameters\)/,
    );
  });
});
