import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import type { Receiver } from './receiver-auth.js';
import { streamById } from './stream.queries.js';
import { addSubject, countSubjects, removeSubject } from './stream-subjects.queries.js';

/** How many subjects one stream may hold. */
const SUBJECTS_PER_STREAM = 10_000;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * SSF 1.0 §8.1.3: a receiver adds subjects to its stream and removes them. Once it added one, the stream carries only
 * its subjects (docs/signals.md, "Subjects"), and still only the people its application admits. A subject is kept as
 * the receiver named it — this issuer's `iss_sub` (the application's `sub`, pairwise where the application is) or an
 * `email` — and matched when a SET is made, so a subject nobody has yet is taken too (§8.1.3.2 lets a transmitter
 * say nothing of whom it knows).
 */
@Injectable()
export class StreamSubjectsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async add(receiver: Receiver, streamId: string, subject: unknown): Promise<void> {
    const key = subjectKey(subject, this.config.publicUrl);
    await this.uow.run(async (manager) => {
      const stream = await streamById(manager, streamId);
      if (!stream || stream.clientId !== receiver.clientId) throw DomainError.notFound('stream');
      if ((await countSubjects(manager, stream.id)) >= SUBJECTS_PER_STREAM) throw DomainError.invalid(`a stream holds at most ${SUBJECTS_PER_STREAM} subjects`);
      await addSubject(manager, stream.id, key);
      await this.record(manager, receiver, { streamId: stream.id, subjectAdded: key.slice(0, key.indexOf(':')) });
    });
  }

  /** 404 for a subject the stream does not have (§8.1.3.3). */
  async remove(receiver: Receiver, streamId: string, subject: unknown): Promise<void> {
    const key = subjectKey(subject, this.config.publicUrl);
    await this.uow.run(async (manager) => {
      const stream = await streamById(manager, streamId);
      if (!stream || stream.clientId !== receiver.clientId) throw DomainError.notFound('stream');
      if (!(await removeSubject(manager, stream.id, key))) throw DomainError.notFound('subject');
      await this.record(manager, receiver, { streamId: stream.id, subjectRemoved: key.slice(0, key.indexOf(':')) });
    });
  }

  private async record(manager: EntityManager, receiver: Receiver, payload: Record<string, string>): Promise<void> {
    await this.events.push(manager, {
      type: 'ssf.stream.changed',
      aggregateType: 'application',
      aggregateId: receiver.appId,
      resourceOwner: receiver.orgId,
      editorUserId: null,
      payload,
    });
  }
}

/**
 * A subject identifier (RFC 9493 §3.2) as its key: `iss_sub` of this issuer (`iss_sub:<sub>`) or `email`
 * (`email:<address in lower case>`); any other format or issuer is refused, naming the member.
 */
export function subjectKey(subject: unknown, issuer: string): string {
  if (!subject || typeof subject !== 'object' || Array.isArray(subject))
    throw DomainError.invalidField('subject', 'subject must be a subject identifier (RFC 9493)');
  const s = subject as Record<string, unknown>;
  if (s.format === 'iss_sub') {
    if (s.iss !== issuer) throw DomainError.invalidField('subject.iss', `subject.iss must be this transmitter's issuer, ${issuer}`);
    if (typeof s.sub !== 'string' || s.sub.length === 0 || s.sub.length > 255)
      throw DomainError.invalidField('subject.sub', 'subject.sub must be 1 to 255 characters');
    return `iss_sub:${s.sub}`;
  }
  if (s.format === 'email') {
    if (typeof s.email !== 'string' || s.email.length > 320 || !EMAIL.test(s.email))
      throw DomainError.invalidField('subject.email', 'subject.email must be an e-mail address');
    return `email:${s.email.toLowerCase()}`;
  }
  throw DomainError.invalidField('subject.format', 'subject.format must be iss_sub or email');
}
