import { Module } from '@nestjs/common';
import { MailOutbox } from './mail-outbox.js';
import { MailSender } from './mail-sender.js';

/**
 * Outgoing mail (docs/mail.md): the outbox other modules write into inside their transactions, and
 * the sender that delivers it over SMTP or as `.eml` files. It owns `mail_messages` and depends on nothing but
 * src/common, so the users domain can queue a message in the transaction that needs it.
 */
@Module({
  providers: [MailOutbox, MailSender],
  exports: [MailOutbox],
})
export class MailModule {}
