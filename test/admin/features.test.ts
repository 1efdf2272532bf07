import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import type { SearchedEvent } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, badRequest, bool, refused, setUpOrg, snapshot, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

describe('admin API: instance features', () => {
  const svc = useService();
  let a: OrgSetup;
  let adminClientId: string;
  const PATH = '/admin/v1/features';

  const featureEvents = (): Promise<SearchedEvent[]> => searchEvents(svc, { event_types: ['instance.feature.set'], limit: 1000 });

  async function state(): Promise<Record<string, boolean>> {
    const res = await svc.api('GET', PATH, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  /** Sets the flags and returns the events the change wrote, oldest first. */
  async function put(body: unknown, token = svc.adminToken): Promise<{ body: Record<string, boolean>; events: SearchedEvent[] }> {
    const before = (await featureEvents()).length;
    const res = await svc.api('PUT', PATH, { token, body });
    assert.equal(res.status, 200, res.text);
    const events = await featureEvents();
    return { body: res.body, events: events.slice(0, events.length - before).reverse() };
  }

  before(async () => {
    a = await setUpOrg(svc);
    [{ id: adminClientId }] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
  });

  it('starts with every feature off', async () => {
    const res = await svc.api('GET', PATH, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { tokenExchange: false, impersonation: false });
  });

  it('sets a feature: 200 with the whole current state, stored, and instance.feature.set written', async () => {
    const { body, events } = await put({ tokenExchange: true });
    assert.deepEqual(body, { tokenExchange: true, impersonation: false });
    assert.deepEqual(await state(), { tokenExchange: true, impersonation: false });
    const [stored] = await svc.dataSource.query("SELECT enabled FROM features WHERE name = 'tokenExchange'");
    assert.equal(bool(stored.enabled), true);

    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event.type.type, 'instance.feature.set');
    assert.equal(event.type.localized.key, 'EventTypes.instance.feature.set');
    assert.equal(event.aggregate.type.type, 'instance');
    assert.equal(event.aggregate.id, 'instance');
    assert.equal(event.aggregate.resourceOwner, 'instance');
    assert.equal(event.editor.userId, adminClientId);
    assert.deepEqual(event.payload, { feature: 'tokenExchange', enabled: true });
    assertNoSecretsIn(event.payload);
  });

  it('writes nothing for a flag that already has the value, nor for an empty body, and answers the current state', async () => {
    const current = await state();
    const before = await snapshot(svc);
    const same = await put({ tokenExchange: current.tokenExchange });
    assert.deepEqual(same.body, current);
    assert.deepEqual(same.events, []);
    const empty = await put({});
    assert.deepEqual(empty.body, current);
    assert.deepEqual(await snapshot(svc), before);
  });

  it('sets several flags at once, one event each, and switches them off again', async () => {
    const both = await put({ tokenExchange: false, impersonation: true });
    assert.deepEqual(both.body, { tokenExchange: false, impersonation: true });
    assert.deepEqual(
      both.events.map((e) => e.payload),
      [
        { feature: 'tokenExchange', enabled: false },
        { feature: 'impersonation', enabled: true },
      ],
    );
    const off = await put({ impersonation: false });
    assert.deepEqual(off.body, { tokenExchange: false, impersonation: false });
    assert.deepEqual(await state(), { tokenExchange: false, impersonation: false });
  });

  it('answers bad bodies with 400 naming each field, applies none of the body, and changes nothing', async () => {
    const current = await state();
    const cases: Array<[unknown, string[]]> = [
      [{ tokenExchange: 'yes' }, ['tokenExchange']],
      [{ tokenExchange: 'true' }, ['tokenExchange']],
      [{ impersonation: 1 }, ['impersonation']],
      [{ tokenExchange: null }, ['tokenExchange']],
      [{ impersonation: {} }, ['impersonation']],
      [{ passwordReset: true }, ['passwordReset']],
      [{ tokenExchange: !current.tokenExchange, impersonation: 'x' }, ['impersonation']],
      [{ tokenExchange: 0, impersonation: 'no', scim: true }, ['tokenExchange', 'impersonation', 'scim']],
    ];
    for (const [body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('PUT', PATH, { token: svc.adminToken, body }), JSON.stringify(body));
    }
    assert.deepEqual(await state(), current);
  });

  it('answers 401 without a valid token, and changes nothing', async () => {
    for (const token of INVALID_TOKENS) {
      await refused(svc, 401, () => svc.api('GET', PATH, tokenOption(token)));
      await refused(svc, 401, () => svc.api('PUT', PATH, { ...tokenOption(token), body: { tokenExchange: true } }));
    }
  });

  it('answers 403 to callers without IAM_OWNER, organization owners included, and changes nothing', async () => {
    for (const caller of [a.owner, a.manager, a.member]) {
      const get = await refused(svc, 403, () => svc.api('GET', PATH, { token: caller.token }));
      assert.match(get.body.message, /IAM_OWNER/);
      await refused(svc, 403, () => svc.api('PUT', PATH, { token: caller.token, body: { impersonation: true } }));
    }
    assert.deepEqual(await state(), { tokenExchange: false, impersonation: false });
  });

  it('serves any IAM_OWNER, and records it as the editor', async () => {
    const iam = await createCaller(svc, a.org.id, { instance: ['IAM_OWNER'] });
    const get = await svc.api('GET', PATH, { token: iam.token });
    assert.equal(get.status, 200, get.text);
    const { body, events } = await put({ impersonation: true }, iam.token);
    assert.deepEqual(body, { tokenExchange: false, impersonation: true });
    assert.equal(events.length, 1);
    assert.equal(events[0].editor.userId, iam.userId);
  });
});
