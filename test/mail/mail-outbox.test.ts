import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mailMessages } from '../../src/common/metrics/metrics.js';
import { freePort } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { linkIn, startMailServer } from './support/mail-server.js';
import type { MailServer } from './support/mail-server.js';

/** A person of a new organization, with an e-mail, invited by the admin: one message in the outbox. */
async function inviteSomeone(svc: TestService): Promise<{ userId: string; email: string }> {
  const org = await createOrg(svc);
  const email = `${unique('ada')}@example.com`;
  const created = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
    token: svc.adminToken,
    body: { userName: email, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email } },
  });
  assert.equal(created.status, 201, created.text);
  const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/${created.body.userId}/invite`, { token: svc.adminToken, body: {} });
  assert.equal(res.status, 202, res.text);
  return { userId: created.body.userId, email };
}

async function messageOf(
  svc: TestService,
  userId: string,
): Promise<{ id: string; status: string; attempts: number; content: string | null; last_error: string | null }> {
  const [row] = await svc.dataSource.query('SELECT id, status, attempts, content, last_error FROM mail_messages WHERE user_id = ?', [userId]);
  assert.ok(row, 'a message in the outbox');
  return { ...row, attempts: Number(row.attempts) };
}

/** Polls the outbox row until `done` holds (the sender runs on its own timer); fails after 20 s. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within 20 s: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const counted = async (result: string) => (await mailMessages.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

/** docs/mail.md, "The outbox": the outbox and its sender, as an operator relies on them. */
describe('mail outbox', () => {
  describe('without SMTP_URL', () => {
    const svc = useService({ MAIL_POLL_MS: '50' });

    it('writes each message as an .eml file under $DATA_DIR/mail/, readable by the service user only', async () => {
      const { userId, email } = await inviteSomeone(svc);
      const { id } = await until(
        () => messageOf(svc, userId),
        (m) => m.status === 'sent',
      );
      const dir = join(svc.dataDir, 'mail');
      assert.ok(readdirSync(dir).includes(`${id}.eml`), readdirSync(dir).join(', '));
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, `${id}.eml`)).mode & 0o777, 0o600);
      const eml = readFileSync(join(dir, `${id}.eml`), 'utf8');
      assert.match(eml, new RegExp(`^To: ${email.replace('.', '\\.')}$`, 'm'));
      assert.match(eml, /^From: Portcullis <no-reply@localhost>$/m, 'MAIL_FROM defaults to no-reply@INSTANCE_DOMAIN');
      assert.match(eml, new RegExp(`^Message-ID: <${id}@localhost>$`, 'm'));
      assert.match(eml, /Content-Type: multipart\/alternative/);
      assert.match(eml, /Content-Type: text\/plain/);
      assert.match(eml, /Content-Type: text\/html/);
      assert.match(eml, /invitation\?code=/);
    });
  });

  describe('through an SMTP server that goes away', () => {
    let mail: MailServer;
    const env: Record<string, string> = { MAIL_POLL_MS: '50', MAIL_RETRY_BASE_MS: '100' };
    before(async () => {
      mail = await startMailServer();
      env.SMTP_URL = mail.smtpUrl;
    });
    const svc = useService(env);
    after(() => mail?.close());

    it('keeps a message while the server is down and sends it, once, when it is back; the request that queued it succeeded', async () => {
      await mail.stop();
      const deferredBefore = await counted('deferred');
      const { userId, email } = await inviteSomeone(svc);
      const waiting = await until(
        () => messageOf(svc, userId),
        (m) => m.attempts >= 2,
      );
      assert.equal(waiting.status, 'pending');
      assert.match(String(waiting.last_error), /ECONNREFUSED/);
      assert.ok((await counted('deferred')) >= deferredBefore + 2);
      await mail.start();
      const received = await mail.waitFor(email);
      assert.match(linkIn(received), /\/ui\/login\/invitation\?code=/);
      const sent = await until(
        () => messageOf(svc, userId),
        (m) => m.status === 'sent',
      );
      assert.equal(sent.content, null);
      assert.equal((await mail.messages()).filter((m) => m.to.some((t) => t.address === email)).length, 1, 'sent once');
    });
  });

  describe('given up after the retry window', () => {
    const env: Record<string, string> = { MAIL_POLL_MS: '50', MAIL_RETRY_BASE_MS: '100', MAIL_RETRY_WINDOW_MS: '400' };
    before(async () => {
      // A port nobody listens on: every attempt is refused.
      env.SMTP_URL = `smtp://127.0.0.1:${await freePort()}`;
    });
    const svc = useService(env);

    it('marks the message failed, erases its content and says so in an event', async () => {
      const failedBefore = await counted('failed');
      const { userId } = await inviteSomeone(svc);
      const failed = await until(
        () => messageOf(svc, userId),
        (m) => m.status === 'failed',
      );
      assert.equal(failed.content, null);
      assert.ok(failed.attempts >= 2, `retried first: ${failed.attempts}`);
      const [event] = await searchEvents(svc, { event_types: ['user.human.mail.failed'], aggregate_id: userId });
      assert.ok(event, 'an event says so');
      assert.equal(event.payload.messageId, failed.id);
      assert.equal(event.payload.purpose, 'invitation');
      assert.match(String(event.payload.error), /ECONNREFUSED/);
      assert.equal(await counted('failed'), failedBefore + 1);
    });
  });
});
