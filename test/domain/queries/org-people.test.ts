import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AgentConsentEntity } from '../../../src/agents/consent/agent-consent.entity.js';
import { personOfOrganization } from '../../../src/users/queries/org-people.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: people of an organization', () => {
  let db: QueryDatabase;

  before(async () => {
    db = await openQueryDatabase();
  });
  after(() => db?.close());

  it("personOfOrganization keeps another module's rows of the organization's people only", async () => {
    const org = await db.org();
    const other = await db.org();
    const person = await db.user(org);
    const outsider = await db.user(other);
    const now = new Date();
    // The consent's own organization is the client's: the person's decides.
    for (const userId of [person.id, outsider.id, 'removed-person']) {
      await db.dataSource.getRepository(AgentConsentEntity).insert({
        id: randomUUID(),
        orgId: other.id,
        userId,
        clientId: 'agent-1',
        clientName: 'Agent',
        resource: '',
        scopes: ['openid'],
        createdAt: now,
        changedAt: now,
      });
    }
    const of = (orgId: string) =>
      db.dataSource.createQueryBuilder(AgentConsentEntity, 'consent').where(personOfOrganization('consent.userId', 'orgId'), { orgId }).getMany();
    assert.deepEqual(
      (await of(org.id)).map((row) => row.userId),
      [person.id],
    );
    assert.deepEqual(
      (await of(other.id)).map((row) => row.userId),
      [outsider.id],
    );
    assert.deepEqual(await of('no-such-org'), []);
  });
});
