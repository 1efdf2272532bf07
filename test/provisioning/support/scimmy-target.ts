/**
 * An independent SCIM 2.0 service for the provisioning tests (docs/provisioning.md): scimmy and scimmy-routers on Express
 * with an in-memory store of Users and Groups, as their documentation sets them up (bench/peers/scimmy-peer.ts is
 * the benchmark's users-only peer). It answers bearer tokens it issued or was given, has an OAuth token endpoint
 * for the client credentials grant, keeps every request, and has a fault switch (an answer status with
 * `Retry-After`, or a delay) for the next requests. scimmy's declarations are global: one per test process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';

type Stored = Record<string, any>;

export interface Fault {
  status?: number;
  retryAfter?: string;
  /** Answered as it is, instead of a SCIM error (say, a body that is not JSON). */
  body?: string;
  /** A `Location` header (a redirect, which a client must not follow). */
  location?: string;
  delayMs?: number;
  /** Carry the request out at once, but hold the answer this long (an answer lost on its way back). */
  holdAnswerMs?: number;
  /** How many requests it applies to (default: all until cleared). */
  count?: number;
  /** Only requests of this method and path (with its query) (default: every request). */
  only?: { method: string; path: string };
}

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  at: number;
  /** What the fault switch answered, if it did. */
  faulted?: number;
  /** How long the fault switch held it. */
  delayed?: number;
  /** The JSON body of a PATCH (what a resent chunk is told apart by). */
  body?: unknown;
  /** The answer went out whole (false: the client closed the connection first, say at its timeout). */
  answered?: boolean;
}

const scimError = (status: number, message: string) => new (SCIMMY.Types.Error as any)(status, null, message);

export class ScimmyTarget {
  readonly users: Stored[] = [];
  readonly groups: Stored[] = [];
  readonly requests: SeenRequest[] = [];
  /** Tokens the SCIM API accepts. */
  readonly tokens = new Set<string>();
  /** The OAuth client the token endpoint knows. */
  client = { id: 'portcullis', secret: randomBytes(12).toString('hex'), expiresIn: 3600 };
  fault: Fault | undefined;
  /** userNames whose create or replace this target refuses with a 400 (one user that fails, the others not). */
  readonly refusedUserNames = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  get baseUrl(): string {
    return `${this.url}/scim/v2`;
  }

  get tokenUrl(): string {
    return `${this.url}/oauth/token`;
  }

  static async start(token = randomBytes(12).toString('hex')): Promise<ScimmyTarget> {
    const app = express();
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const target = new ScimmyTarget(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    target.tokens.add(token);
    target.declare();
    // PATCH bodies are kept; parsed here as scimmy-routers parses them (same types and limit), which then skips them.
    app.patch('/scim/v2/*path', express.json({ type: ['application/scim+json', 'application/json'], limit: '1mb' }));
    app.use((req, res, next) => {
      const seen: SeenRequest = { method: req.method, path: req.originalUrl, authorization: req.header('authorization'), at: Date.now() };
      if (req.method === 'PATCH') seen.body = req.body;
      res.on('finish', () => (seen.answered = true));
      res.on('close', () => (seen.answered ??= false));
      target.requests.push(seen);
      const fault = target.fault;
      if (!fault || req.path === '/oauth/token' || (fault.only && (fault.only.method !== req.method || fault.only.path !== req.originalUrl))) return next();
      seen.faulted = fault.status;
      seen.delayed = fault.delayMs ?? fault.holdAnswerMs;
      if (fault.holdAnswerMs) {
        const end = res.end.bind(res) as (...args: unknown[]) => unknown;
        (res as unknown as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => setTimeout(() => end(...args), fault.holdAnswerMs);
        return next();
      }
      if (fault.count !== undefined && --fault.count <= 0) target.fault = undefined;
      const answer = () => {
        if (fault.status === undefined) return next();
        if (fault.retryAfter !== undefined) res.setHeader('retry-after', fault.retryAfter);
        if (fault.location !== undefined) res.setHeader('location', fault.location);
        res
          .status(fault.status)
          .type('application/scim+json')
          .send(
            fault.body ?? JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: String(fault.status), detail: 'fault switch' }),
          );
      };
      if (fault.delayMs) setTimeout(answer, fault.delayMs);
      else answer();
    });
    app.post('/oauth/token', express.urlencoded({ extended: false }), (req, res) => {
      const [id, secret] = Buffer.from((req.header('authorization') ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      if (req.body.grant_type !== 'client_credentials') return void res.status(400).json({ error: 'unsupported_grant_type' });
      if (id !== target.client.id || secret !== target.client.secret) return void res.status(401).json({ error: 'invalid_client' });
      const issued = randomBytes(16).toString('hex');
      target.tokens.add(issued);
      res.json({ access_token: issued, token_type: 'Bearer', expires_in: target.client.expiresIn });
    });
    app.use(
      '/scim/v2',
      new SCIMMYRouters({
        type: 'bearer',
        docUri: 'https://example.com/',
        handler: (request: express.Request) => {
          const token = request.header('Authorization')?.replace(/^Bearer /, '');
          if (!token || !target.tokens.has(token)) throw new Error('Authorization not detected!');
          return 'test';
        },
      }),
    );
    return target;
  }

  /** Routes scimmy's resources to this target's store (the last started target in the process). */
  private declare(): void {
    SCIMMY.Config.set({ patch: true, filter: true, bulk: false, sort: false, etag: false, changePassword: false });
    // RFC 7643 §2.3 and §7: canonical values are suggestions. The schema of §8.7.1 lists none for `roles.type`, which
    // scimmy reads as "no value allowed"; SCIM services take any role type (Entra ID sends its own), and so does this one.
    SCIMMY.Schemas.User.definition.attribute('roles.type').config.canonicalValues = false;
    this.declareResource(
      SCIMMY.Resources.User,
      this.users,
      (s) => String(s.userName).toLowerCase(),
      (s) => this.refusedUserNames.has(String(s.userName)),
    );
    this.declareResource(SCIMMY.Resources.Group, this.groups, (s) => String(s.displayName));
  }

  private declareResource(resource: any, store: Stored[], unique: (s: Stored) => string, refused: (s: Stored) => boolean = () => false): void {
    const byId = (id: string) => store.find((s) => s.id === id);
    SCIMMY.Resources.declare(resource)
      .egress((request: any) => {
        if (request.id) return byId(request.id) ?? Promise.reject(scimError(404, `Resource ${request.id} not found`));
        return request.filter ? request.filter.match(store) : store;
      })
      .ingress((request: any, instance: any) => {
        const value = JSON.parse(JSON.stringify(instance));
        if (refused(value)) throw scimError(400, 'refused by the test');
        const clash = store.find((s) => unique(s) === unique(value) && s.id !== request.id);
        if (clash) throw new SCIMMY.Types.Error(409, 'uniqueness', 'already taken');
        const now = new Date().toISOString();
        if (request.id) {
          const existing = byId(request.id);
          if (!existing) throw scimError(404, `Resource ${request.id} not found`);
          for (const key of Object.keys(existing)) if (key !== 'id' && key !== 'meta') delete existing[key];
          Object.assign(existing, value, { id: existing.id, meta: { ...existing.meta, lastModified: now } });
          return existing;
        }
        const created = { ...value, id: randomUUID(), meta: { created: now, lastModified: now } };
        store.push(created);
        return created;
      })
      .degress((request: any) => {
        const existing = byId(request.id);
        if (!existing) throw scimError(404, `Resource ${request.id} not found`);
        store.splice(store.indexOf(existing), 1);
      });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
