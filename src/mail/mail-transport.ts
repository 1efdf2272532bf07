import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Nodemailer from 'nodemailer';
import type { Transporter, TransportOptions } from 'nodemailer';
import { onFirstUse } from '../common/modules/on-first-use.js';
import { ownerOnlyDir } from '../common/fs/owner-only.js';
import type { MailConfig } from '../common/config/config.js';
import type { RenderedMail } from './mail-templates.js';

export interface MailEnvelope extends RenderedMail {
  id: string;
  to: string;
  /** The Message-ID's domain: the same id on every attempt, so a receiver can drop a repeat after a crash. */
  domain: string;
}

/** Hands a message over: to the SMTP server of `SMTP_URL`, or as an `.eml` file under `$DATA_DIR/mail/`. */
export interface MailTransport {
  /** Where messages go, for the start-up log line (no credentials). */
  readonly describe: string;
  send(mail: MailEnvelope): Promise<void>;
  close(): void;
}

// Well under the lease (MAIL_LEASE_MS), so an attempt never outlives the process's hold on its message.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function mailTransport(config: MailConfig, dataDir: string): MailTransport {
  return config.smtpUrl ? new SmtpTransport(config) : new FileTransport(config.from, join(dataDir, 'mail'));
}

// Loaded at the first message, not at start-up: most instances send mail rarely, and nodemailer held 1.6 MB of every
// process's heap (BENCHMARKS.md, "Performance goals, memory"; src/common/modules/on-first-use.ts).
const nodemailer = onFirstUse<typeof Nodemailer>('nodemailer');

/** A nodemailer transporter made at the first message (neither transport connects before its first message anyway). */
class FirstUse {
  private made: Transporter | undefined;

  constructor(private readonly options: TransportOptions | Record<string, unknown>) {}

  get(): Transporter {
    return (this.made ??= nodemailer().createTransport(this.options));
  }

  close(): void {
    this.made?.close();
  }
}

function message(from: string, mail: MailEnvelope) {
  // Header values are one line: nodemailer encodes them, and a name with a line break must not add headers.
  const subject = mail.subject.replace(/[\r\n]+/g, ' ');
  return { from, to: mail.to, subject, text: mail.text, html: mail.html, messageId: `<${mail.id}@${mail.domain}>` };
}

class SmtpTransport implements MailTransport {
  readonly describe: string;
  private readonly transporter: FirstUse;

  constructor(private readonly config: MailConfig) {
    const url = new URL(config.smtpUrl!);
    const secure = url.protocol === 'smtps:';
    this.describe = `${url.protocol}//${url.hostname}:${url.port || (secure ? 465 : 587)}`;
    this.transporter = new FirstUse({
      host: url.hostname,
      port: Number(url.port || (secure ? 465 : 587)),
      secure,
      // STARTTLS is used whenever the server offers it; SMTP_REQUIRE_TLS refuses a server that does not.
      requireTLS: config.requireTls,
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      // One kept connection: a connection per message pays the server's greeting (often a deliberate pause against
      // early talkers), EHLO and the TLS handshake every time — 8x slower against a local server (BENCHMARKS.md,
      // "Mail outbox"). The outbox sends one message at a time per process; 100 messages per connection, then a new one.
      pool: true,
      maxConnections: 1,
      maxMessages: 100,
      ...SMTP_TIMEOUTS,
    });
  }

  async send(mail: MailEnvelope): Promise<void> {
    await this.transporter.get().sendMail(message(this.config.from, mail));
  }

  close(): void {
    this.transporter.close();
  }
}

/** Without SMTP_URL: every message is an `.eml` file (readable by the service's user only), never dropped. */
class FileTransport implements MailTransport {
  readonly describe: string;
  private readonly builder = new FirstUse({ streamTransport: true, buffer: true, newline: 'unix' });

  constructor(
    private readonly from: string,
    private readonly dir: string,
  ) {
    this.describe = `files in ${dir}`;
  }

  async send(mail: MailEnvelope): Promise<void> {
    ownerOnlyDir(this.dir);
    const info = await this.builder.get().sendMail(message(this.from, mail));
    writeFileSync(join(this.dir, `${mail.id}.eml`), info.message as Buffer, { mode: 0o600 });
  }

  close(): void {
    this.builder.close();
  }
}
