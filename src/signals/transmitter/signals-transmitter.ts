import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { LoggedEvent } from '../../common/events/event-log.js';
import { AppLogger } from '../../common/http/logging.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { reportBackgroundError } from '../../common/operations/background-errors.js';
import { LeasedWorkers } from '../../common/operations/leased-workers.js';
import { SigningKeysService } from '../../oidc/keys/signing-keys.service.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import type { ApplicationAccessMode } from '../../users/entities/application.entity.js';
import { clientRows } from '../../users/queries/oidc-clients.js';
import { json } from '../../common/database/column-values.js';
import { SSF_VERIFICATION } from '../event-uris.js';
import { setJti, signSet } from './set-token.js';
import { signalsOf } from './set-of-event.js';
import type { Signals } from './set-of-event.js';
import { allStreamIds, queueSets } from './stream.queries.js';
import { subjectsOf } from './stream-subjects.queries.js';
import type { StreamSubjects } from './stream-subjects.queries.js';
import { userById } from '../../users/queries/grant-parties.js';
import type { SsfStreamRow } from './stream.queries.js';
import { StreamWorker } from './stream-worker.js';

/** The longest a receiver may take to answer a push; the lease must outlast it. */
const PUSH_TIMEOUT_MS = 10_000;

/** The receiver's application as SETs need it: who it admits, and how it names a user. */
interface ReceiverApp {
  projectId: string;
  access: ApplicationAccessMode;
  subjectType: string;
  redirectUris: string[];
}

/**
 * The Shared Signals transmitter (SSF 1.0; docs/signals.md): runs in every process, works each stream under a lease
 * (`ssf-stream:<id>`, LeasedWorkers) and makes the SETs of the events committed in the event log — the one outbox —
 * for the users the stream's application may enter (docs/product-rules.md, "Application access").
 */
@Injectable()
export class SignalsTransmitter implements OnApplicationBootstrap, OnModuleDestroy {
  readonly workers: LeasedWorkers<StreamWorker>;
  private readonly post: ReturnType<typeof outboundFetch>;

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    private readonly dataSource: DataSource,
    private readonly encryptor: Encryptor,
    private readonly keys: SigningKeysService,
    private readonly pairwise: PairwiseSubjects,
    private readonly access: ApplicationAccess,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.post = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: PUSH_TIMEOUT_MS, maxBodyBytes: 64 * 1024 });
    this.workers = new LeasedWorkers(uow, {
      prefix: 'ssf-stream',
      ids: () => allStreamIds(this.uow.manager),
      leaseMs: () => config.auditStreams.leaseMs,
      create: (id) => new StreamWorker(this, id),
      onError: (error) => this.logError('shared signals transmitter', error),
    });
  }

  onApplicationBootstrap(): void {
    this.workers.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.workers.stop();
  }

  sendable(streamId: string): boolean {
    return this.workers.sendable(streamId, PUSH_TIMEOUT_MS + 1000);
  }

  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }

  /** The SETs these events make for the stream: only the event types it asked for, only of users its application admits. */
  async setsFor(stream: SsfStreamRow, events: LoggedEvent[]): Promise<{ jti: string; token: string }[]> {
    const app = await this.receiverApp(stream.clientId);
    if (!app) return [];
    const sets: { jti: string; token: string }[] = [];
    const now = Date.now();
    const subjects = await subjectsOf(this.uow.manager, stream.id);
    for (const event of events) {
      const signals = signalsOf(event, now);
      if (!signals) continue;
      const wanted = signals.events.filter((e) => stream.eventsRequested.includes(e.uri));
      if (wanted.length === 0 || !(await this.admits(app, signals))) continue;
      const subject = { format: 'iss_sub', iss: this.config.publicUrl, sub: this.pairwise.subjectFor(app, signals.userId) };
      if (subjects.onlyAdded && !(await this.added(subjects, subject.sub, signals.userId))) continue;
      for (const signal of wanted) {
        const jti = setJti(stream.id, String(event.position), signal.key);
        sets.push({ jti, token: await this.sign(stream, jti, subject, { [signal.uri]: signal.members }, String(event.position)) });
      }
    }
    return sets;
  }

  /**
   * Whether the receiver added the person to the stream (SSF 1.0 §8.1.3): by their `sub` for the application, or by
   * the e-mail address they have now (a person removed has none).
   */
  private async added(subjects: StreamSubjects, sub: string, userId: string): Promise<boolean> {
    if (subjects.keys.has(`iss_sub:${sub}`)) return true;
    const email = (await userById(this.dataSource, userId))?.emailLower;
    return Boolean(email) && subjects.keys.has(`email:${email}`);
  }

  /** Whether the application admits the person the event is about; a removed person's grants are in the event. */
  private async admits(app: ReceiverApp, signals: Signals): Promise<boolean> {
    if (signals.grantedProjects === undefined) return this.access.mayEnter(app, signals.userId);
    return app.access !== 'granted' || signals.grantedProjects.includes(app.projectId);
  }

  /** SSF 1.0 §8.1.4.2: a verification event, queued behind what the stream already owes. */
  async queueVerification(stream: SsfStreamRow, state: string | undefined): Promise<void> {
    const jti = setJti(stream.id, 'verification', `${Date.now()}:${Math.random()}`);
    const subject = { format: 'opaque', id: stream.id };
    const token = await this.sign(stream, jti, subject, { [SSF_VERIFICATION]: state ? { state } : {} });
    await this.uow.run((manager) => queueSets(manager, stream.id, [{ jti, token }]));
  }

  /** RFC 8935 §2: one SET per POST, `application/secevent+jwt`; 202 is the only success (§2.2). */
  async pushSet(stream: SsfStreamRow, token: string, signal: AbortSignal): Promise<void> {
    if (!stream.endpointUrl) throw new Error('the stream has no endpoint_url');
    const headers: Record<string, string> = { 'content-type': 'application/secevent+jwt', accept: 'application/json' };
    if (stream.authorizationHeader) headers.authorization = this.encryptor.decrypt(stream.authorizationHeader);
    const answer = await this.post(stream.endpointUrl, { method: 'POST', headers, body: token, signal });
    if (answer.status !== 202) {
      const body = await answer.text().catch(() => '');
      throw new Error(`the receiver answered ${answer.status} ${body.slice(0, 200)}`);
    }
  }

  private async sign(
    stream: SsfStreamRow,
    jti: string,
    subject: Record<string, unknown>,
    events: Record<string, Record<string, unknown>>,
    txn?: string,
  ): Promise<string> {
    const [signer] = (await this.keys.keySet()).jwks;
    if (!signer) throw new Error('no signing key');
    return signSet(signer, { issuer: this.config.publicUrl, audience: stream.clientId, jti, subject, events, ...(txn ? { txn } : {}) });
  }

  private async receiverApp(clientId: string): Promise<ReceiverApp | undefined> {
    const row = (await clientRows(this.dataSource, clientId)).find((r) => r.src === 'app');
    if (!row || !row.project_id) return undefined;
    return {
      projectId: row.project_id,
      access: row.access as ApplicationAccessMode,
      subjectType: row.subject_type ?? 'public',
      redirectUris: json<string[]>(row.redirect_uris, []),
    };
  }
}
