import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createOrg } from '../support/fixtures.js';
import { startMailServer } from '../mail/support/mail-server.js';
import type { MailServer } from '../mail/support/mail-server.js';
import { eventually, processSetup, remoteService } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';

const PEOPLE = 20;

/** An SMTP server that accepts connections and never greets: an attempt hangs, its message stays leased. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * kill -9 with messages in the outbox (docs/mail.md): none is lost, none sent twice. The first process queues
 * invitations while its SMTP server hangs (one message is held under its lease, the others wait); it is killed;
 * a second process, with a working server (MailDev), sends them all — the held one once its lease has run out.
 */
describe('faults: kill -9 with mail queued loses no message', () => {
  let setup: ProcessSetup;
  let mail: MailServer;
  before(async () => {
    mail = await startMailServer();
    setup = await processSetup({ MAIL_POLL_MS: '50', MAIL_LEASE_MS: '1000' });
  });
  after(async () => {
    await setup?.cleanup();
    await mail?.close();
  });

  it(`${PEOPLE} invitations queued, the sender killed mid-attempt: each arrives once after the restart`, async () => {
    const hole = await blackHole();
    const first = await setup.spawn({ SMTP_URL: hole.url });
    const svc = remoteService(first.url, setup.adminToken());
    const org = await createOrg(svc);
    const addresses: string[] = [];
    for (let i = 0; i < PEOPLE; i++) {
      const email = `person-${i}@example.com`;
      const created = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
        token: svc.adminToken,
        body: { userName: `person-${i}`, profile: { firstName: 'Per', lastName: `Son ${i}` }, email: { email } },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(
        (await svc.api('POST', `/management/v1/orgs/${org.id}/users/${created.body.userId}/invite`, { token: svc.adminToken, body: {} })).status,
        202,
      );
      addresses.push(email);
    }
    const pending = () =>
      setup.inspect((ds) => ds.query("SELECT id, lease_owner FROM mail_messages WHERE status = 'pending'")) as Promise<{ lease_owner: string | null }[]>;
    await eventually('a message held by the first process', async () => ((await pending()).some((m) => m.lease_owner !== null) ? true : undefined));
    assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');
    await hole.close();
    assert.equal((await pending()).length, PEOPLE, 'all still in the outbox');

    await setup.spawn({ SMTP_URL: mail.smtpUrl });
    await eventually('every message sent', async () => ((await pending()).length === 0 ? true : undefined), 30_000);
    const received = (await mail.messages()).flatMap((m) => m.to.map((t) => t.address));
    assert.deepEqual([...received].sort(), [...addresses].sort(), 'each address once, none missing');
    const statuses = await setup.inspect((ds) => ds.query('SELECT status, content FROM mail_messages'));
    assert.ok(statuses.every((m: { status: string; content: string | null }) => m.status === 'sent' && m.content === null));
  });
});
