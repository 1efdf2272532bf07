/**
 * The peer of the SCIM benchmark: scimmy + scimmy-routers on Express with an in-memory store, as
 * their documentation sets them up. Listens on argv[2] and serves the users the benchmark seeded into
 * Portcullis (a JSON file given as argv[3]). Not part of the service.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import express from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';

type Stored = Record<string, any>;

const users: Stored[] = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const byId = new Map(users.map((u) => [u.id, u]));
const port = Number(process.argv[2]);

SCIMMY.Resources.declare(SCIMMY.Resources.User)
  .egress((resource: any) => {
    if (resource.id) {
      const user = byId.get(resource.id);
      if (!user) throw new (SCIMMY.Types.Error as any)(404, null, `Resource ${resource.id} not found`);
      return user;
    }
    return resource.filter ? resource.filter.match(users) : users;
  })
  .ingress((resource: any, instance: any) => {
    if (resource.id) {
      const user = byId.get(resource.id);
      if (!user) throw new (SCIMMY.Types.Error as any)(404, null, `Resource ${resource.id} not found`);
      Object.assign(user, JSON.parse(JSON.stringify(instance)), { meta: { ...user.meta, lastModified: new Date().toISOString() } });
      return user;
    }
    const lower = String(instance.userName).toLowerCase();
    if (users.some((u) => String(u.userName).toLowerCase() === lower)) throw new SCIMMY.Types.Error(409, 'uniqueness', 'userName taken');
    const now = new Date().toISOString();
    const user = { ...JSON.parse(JSON.stringify(instance)), id: randomUUID(), meta: { created: now, lastModified: now } };
    users.push(user);
    byId.set(user.id, user);
    return user;
  })
  .degress((resource: any) => {
    const user = byId.get(resource.id);
    if (!user) throw new (SCIMMY.Types.Error as any)(404, null, `Resource ${resource.id} not found`);
    byId.delete(resource.id);
    users.splice(users.indexOf(user), 1);
  });

const app = express();
app.use(
  '/scim/v2',
  new SCIMMYRouters({
    type: 'bearer',
    docUri: 'https://example.com/',
    handler: (request: express.Request) => {
      if (!request.header('Authorization')?.startsWith('Bearer ')) throw new Error('Authorization not detected!');
      return 'bench';
    },
  }),
);
app.listen(port, '127.0.0.1');
