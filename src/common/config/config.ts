import { resolve } from 'node:path';
import { compileTrustedProxies } from '../http/client-address.js';

/** Everything the service reads from its environment, validated once at start-up (docs/product-rules.md, "Running it"). */
export interface AppConfig {
  port: number;
  publicUrl: string;
  dataDir: string;
  database: DatabaseConfig;
  /** Base64 of 32 bytes, or undefined to use (and on first start create) `$DATA_DIR/master.key`. */
  masterKey?: string;
  workers: number;
  logLevel: LogLevel;
  instanceDomain: string;
  bootstrapAdminPassword?: string;
  bcryptCost: number;
  /** Largest JSON body accepted by the admin and management APIs. */
  bodyLimitBytes: number;
  /** Largest JSON body accepted by `POST /admin/v1/import` (100,000 users in one request: docs/product-rules.md, "Import and event search"). */
  importBodyLimitBytes: number;
  loginRateLimit: LoginRateLimitConfig;
  dynamicRegistrationBounds: DynamicRegistrationBounds;
  /** How often expired OIDC tokens, codes, sessions and interactions are deleted. */
  oidcPurgeIntervalMs: number;
  /** How often each process looks for a rotated or newly signing key (`KEY_POLL_MS`, 5 s). */
  keyPollMs: number;
  /** How often each process looks for due SAML logouts that other processes marked (`SAML_LOGOUT_POLL_MS`, 5 s). */
  samlLogoutPollMs: number;
  /** RFC 8628 §3.2 `interval`: the seconds a device waits between polls of its device code (`DEVICE_POLL_INTERVAL_SECONDS`). */
  devicePollIntervalSeconds: number;
  /** The operators' listener: /metrics, /healthz, /readyz (docs/operations.md). Port 0: any free port. */
  management: { host: string; port: number };
  /** JWS algorithm (RFC 7518 §3.1, RFC 8037 §3.1) of every new signing key; existing keys keep theirs. */
  signingAlg: SigningAlg;
  webhooks: WebhookConfig;
  provisioning: ProvisioningConfig;
  auditStreams: AuditStreamConfig;
  /**
   * The longest a list read driven by a client's filter (SCIM) may run before it is stopped and refused:
   * MariaDB's max_statement_time, SQLite's read thread (src/common/database/bounded-reads.ts).
   */
  listReadTimeLimitMs: number;
  /**
   * Whether outbound calls (webhooks, federation discovery and metadata) may reach loopback, private and
   * link-local networks (docs/product-rules.md, "Outbound calls"). `OUTBOUND_ALLOW_PRIVATE_NETWORKS`, of which
   * `WEBHOOK_ALLOW_PRIVATE_NETWORKS` is an alias.
   */
  outboundAllowPrivateNetworks: boolean;
  /** How long a call to an upstream identity provider (discovery, keys, token, user info) may take (`IDP_TIMEOUT_MS`). */
  idpTimeoutMs: number;
  /** How long keys read from an application's jwks_uri are used before it is read again (`CLIENT_JWKS_CACHE_MS`, 5 min). */
  clientJwksCacheMs: number;
  /** How long an idle client connection is kept open (`HTTP_KEEP_ALIVE_TIMEOUT_MS`, 65 s): docs/operations.md. */
  httpKeepAliveTimeoutMs: number;
  /** TRUSTED_PROXIES: addresses or ranges whose X-Forwarded-For is believed (src/common/http/client-address.ts). */
  trustedProxies: string[];
  domainVerification: DomainVerificationConfig;
  mail: MailConfig;
  backchannelLogout: BackchannelLogoutConfig;
}

/** How an organization's domain is proven (docs/federation.md, "Organization domains"). */
export interface DomainVerificationConfig {
  /**
   * The DNS servers asked for the challenge's TXT record and for the address of the HTTP file's host, each
   * `address` or `address:port` (`DOMAIN_VERIFICATION_DNS_SERVERS`, comma-separated); empty: the system's resolver.
   */
  dnsServers: string[];
  /** The port of the HTTPS file check (`DOMAIN_VERIFICATION_HTTPS_PORT`, 443). */
  httpsPort: number;
}

/** Logout tokens to applications (OIDC Back-Channel Logout 1.0; docs/oauth-profiles.md), on the webhooks' schedule. */
export interface BackchannelLogoutConfig {
  /** The first retry's delay; each further retry waits twice as long (`BACKCHANNEL_LOGOUT_RETRY_BASE_MS`). */
  retryBaseMs: number;
  /** How long an undelivered logout token is retried before it is `failed` (`BACKCHANNEL_LOGOUT_RETRY_WINDOW_MS`, 24 h). */
  retryWindowMs: number;
  /** How long a process holds a logout token it is sending; after a crash, another sends it then (`BACKCHANNEL_LOGOUT_LEASE_MS`). */
  leaseMs: number;
  /** How often each process looks for due logout tokens that nobody sends (`BACKCHANNEL_LOGOUT_POLL_MS`). */
  pollMs: number;
}

/** Outgoing mail (docs/mail.md). */
export interface MailConfig {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; undefined: `.eml` files under `$DATA_DIR/mail/`. */
  smtpUrl?: string;
  /** Refuse to send over a connection that is not encrypted (`SMTP_REQUIRE_TLS`). */
  requireTls: boolean;
  /** The `From` header (`MAIL_FROM`). */
  from: string;
  /** The first retry's delay; each further retry waits twice as long (`MAIL_RETRY_BASE_MS`). */
  retryBaseMs: number;
  /** How long an unsent message is retried before it is `failed` (`MAIL_RETRY_WINDOW_MS`, 24 h). */
  retryWindowMs: number;
  /** How long a process holds a message it is sending; after a crash, another sends it then (`MAIL_LEASE_MS`). */
  leaseMs: number;
  /** How often each process looks for due messages that nobody sends (`MAIL_POLL_MS`). */
  pollMs: number;
}

/** Webhook delivery (src/webhooks; docs/webhooks.md). */
export interface WebhookConfig {
  /** Whether targets on loopback, private and link-local networks are allowed (off: refused at creation and at delivery). */
  allowPrivateNetworks: boolean;
  /** The first retry's delay; each further retry waits twice as long as the one before. */
  retryBaseMs: number;
  /** How long a failing event is retried, from its first attempt, before it is marked `failing` and skipped. */
  retryWindowMs: number;
  /** How long a process holds a subscription without renewing its lease; after a crash, another takes over then. */
  leaseMs: number;
}

/** Outbound SCIM provisioning (src/provisioning; docs/provisioning.md). Outbound addresses: `outboundAllowPrivateNetworks`. */
export interface ProvisioningConfig {
  /** The first retry of a failed push (`PROVISIONING_RETRY_BASE_MS`, 5 s); each further retry waits twice as long. */
  retryBaseMs: number;
  /** How long an object is retried, from its first attempt, before it is `failing` (`PROVISIONING_RETRY_WINDOW_MS`, 24 h). */
  retryWindowMs: number;
  /** How long a process holds a target without renewing (`PROVISIONING_LEASE_MS`, 30 s); after a crash, another pushes then. */
  leaseMs: number;
  /** How many members one `PATCH` of a group adds or removes (`PROVISIONING_MEMBERS_PER_PATCH`, 100; RFC 7644 §3.5.2). */
  membersPerPatch: number;
}

/** Audit streams (src/audit; docs/audit-and-signals.md). Outbound addresses: `outboundAllowPrivateNetworks`. */
export interface AuditStreamConfig {
  /** The first retry of a batch the receiver did not take (`AUDIT_STREAM_RETRY_BASE_MS`, 5 s); each further waits twice as long. */
  retryBaseMs: number;
  /** The longest wait between two retries (`AUDIT_STREAM_RETRY_MAX_MS`, 5 min): a stream is retried for as long as it fails, never dropped. */
  retryMaxMs: number;
  /** How long a process holds a stream without renewing (`AUDIT_STREAM_LEASE_MS`, 30 s); after a crash, another delivers then. */
  leaseMs: number;
}

/** The signing algorithms a key can be created for: RSA (the default every relying party supports), P-256, Ed25519. */
const SIGNING_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** Failed password checks allowed per fixed window before the login UI answers 429 (on top of the lockout). */
export interface LoginRateLimitConfig {
  windowSeconds: number;
  failuresPerIp: number;
  failuresPerLoginName: number;
  /** Dynamic client registrations (RFC 7591) one address may make per minute (docs/agents.md, "Dynamic registration"). */
  registrationsPerIpPerMinute: number;
}

/**
 * How many live clients that registered themselves (RFC 7591) the database holds at most (docs/agents.md, "Dynamic
 * registration"): per organization, and openly registered ones not yet bound to one. Past a bound a registration is
 * refused, so addresses without number cannot fill the database.
 */
export interface DynamicRegistrationBounds {
  perOrganization: number;
  unbound: number;
}

export type DatabaseConfig =
  | { type: 'sqlite'; path: string; busyTimeoutMs: number; checkpointIdleMs: number }
  | { type: 'mysql'; url: string; nodes: DatabaseNode[] };

/**
 * One server of a MySQL/MariaDB `DATABASE_URL`. A URL may list several (`mysql://u:p@db1:3306,db2,db3/portcullis`,
 * the nodes of a Galera cluster): a process uses the first healthy one (docs/high-availability.md).
 */
export interface DatabaseNode {
  host: string;
  port: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads and validates the configuration; throws one ConfigError listing every problem found. */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const config = readConfig(new EnvReader(env, problems), problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The name of every variable the configuration reads (docs/operations.md, "Configuration"). */
export function settingNames(): ReadonlySet<string> {
  const read = new EnvReader({}, []);
  readConfig(read, []);
  return read.names;
}

function readConfig(read: EnvReader, problems: string[]): AppConfig {
  const port = read.integer('PORT', 8080, 0, 65535);
  const dataDir = resolve(read.string('DATA_DIR', './data'));
  const publicUrl = read.url('PUBLIC_URL', `http://localhost:${port}`).replace(/\/+$/, '');
  const database = parseDatabaseUrl(read.string('DATABASE_URL', `sqlite:${dataDir}/portcullis.sqlite`), problems);
  if (database.type === 'sqlite') {
    database.busyTimeoutMs = read.integer('SQLITE_BUSY_TIMEOUT_MS', SQLITE_DEFAULTS.busyTimeoutMs, 0, 600_000);
    database.checkpointIdleMs = read.integer('SQLITE_CHECKPOINT_IDLE_MS', SQLITE_DEFAULTS.checkpointIdleMs, 1000, 86_400_000);
  }
  const masterKey = read.optional('MASTER_KEY');
  if (masterKey !== undefined && !isBase64Key(masterKey)) {
    problems.push('MASTER_KEY must be 32 bytes encoded as base64');
  }
  const workers = read.integer('WORKERS', 1, 1, 64);
  const logLevel = read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS);
  const instanceDomain = read.string('INSTANCE_DOMAIN', 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(instanceDomain)) {
    problems.push(`INSTANCE_DOMAIN must be a host name, got "${instanceDomain}"`);
  }
  const bootstrapAdminPassword = read.optional('BOOTSTRAP_ADMIN_PASSWORD');
  if (bootstrapAdminPassword !== undefined && bootstrapAdminPassword.length < 8) {
    problems.push('BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters');
  }
  const bcryptCost = read.integer('BCRYPT_COST', 10, 4, 15);
  const bodyLimitBytes = read.integer('BODY_LIMIT_BYTES', 1_000_000, 1024, 1_000_000_000);
  // 100,000 users with bcrypt hashes and full profiles take about 40 MB of JSON; 200 MB leaves room.
  const importBodyLimitBytes = read.integer('IMPORT_BODY_LIMIT_BYTES', 200_000_000, 1024, 2_000_000_000);
  // Keycloak's brute-force detection: 30 failures (failureFactor) and 15 minutes (maxFailureWaitSeconds).
  // Per IP more, since many users can share one address (NAT, proxies).
  const loginRateLimit = {
    windowSeconds: read.integer('LOGIN_RATE_LIMIT_WINDOW_SECONDS', 900, 1, 86_400),
    failuresPerIp: read.integer('LOGIN_RATE_LIMIT_PER_IP', 100, 1, 1_000_000),
    failuresPerLoginName: read.integer('LOGIN_RATE_LIMIT_PER_LOGIN_NAME', 30, 1, 1_000_000),
    registrationsPerIpPerMinute: read.integer('DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
  };
  // Keycloak's "Max Clients Limit" registration policy bounds a realm's anonymous registrations likewise (200 there).
  const dynamicRegistrationBounds = {
    perOrganization: read.integer('DYNAMIC_REGISTRATION_MAX_PER_ORG', 1000, 1, 1_000_000),
    unbound: read.integer('DYNAMIC_REGISTRATION_MAX_UNBOUND', 1000, 1, 1_000_000),
  };
  const oidcPurgeIntervalMs = read.integer('OIDC_PURGE_INTERVAL_MS', 600_000, 1000, 86_400_000);
  const keyPollMs = read.integer('KEY_POLL_MS', 5000, 100, 60_000);
  // A logout marked by this process is sent once its transaction commits; the poll is for other processes' and retries.
  const samlLogoutPollMs = read.integer('SAML_LOGOUT_POLL_MS', 5000, 10, 60_000);
  const devicePollIntervalSeconds = read.integer('DEVICE_POLL_INTERVAL_SECONDS', 5, 1, 60);
  const management = { host: read.string('MANAGEMENT_HOST', '127.0.0.1'), port: read.integer('MANAGEMENT_PORT', 9000, 0, 65535) };
  if (management.port !== 0 && management.port === port) problems.push(`MANAGEMENT_PORT must differ from PORT (${port})`);
  // Case-sensitive, as JWS "alg" values are (RFC 7515 §4.1.1).
  const signingAlg = read.oneOf('SIGNING_ALG', 'RS256', SIGNING_ALGS);
  // Standard Webhooks and Svix: first retry after about 5 s, retries for about a day.
  // The lease outlives the 10 s delivery timeout, so no attempt outlives its process's lease.
  const outboundAllowPrivateNetworks = read.boolean('OUTBOUND_ALLOW_PRIVATE_NETWORKS', false) || read.boolean('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false);
  const webhooks = {
    allowPrivateNetworks: outboundAllowPrivateNetworks,
    retryBaseMs: read.integer('WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
    retryWindowMs: read.integer('WEBHOOK_RETRY_WINDOW_MS', 86_400_000, 0, 30 * 86_400_000),
    leaseMs: read.integer('WEBHOOK_LEASE_MS', 30_000, 15_000, 3_600_000),
  };

  // As webhooks (docs/provisioning.md, "How it is pushed"): first retry after about 5 s, given up after 24 h. The lease outlives a request's 10 s.
  const provisioning = {
    retryBaseMs: read.integer('PROVISIONING_RETRY_BASE_MS', 5000, 10, 3_600_000),
    retryWindowMs: read.integer('PROVISIONING_RETRY_WINDOW_MS', 86_400_000, 0, 30 * 86_400_000),
    leaseMs: read.integer('PROVISIONING_LEASE_MS', 30_000, 12_000, 3_600_000),
    membersPerPatch: read.integer('PROVISIONING_MEMBERS_PER_PATCH', 100, 1, 1000),
  };

  // As webhooks' first retry; but a stream never gives a record up (docs/audit-and-signals.md, "Delivery"), so the
  // back-off stops growing at AUDIT_STREAM_RETRY_MAX_MS. The lease outlives a batch's 10 s.
  const auditStreams = {
    retryBaseMs: read.integer('AUDIT_STREAM_RETRY_BASE_MS', 5000, 10, 3_600_000),
    retryMaxMs: read.integer('AUDIT_STREAM_RETRY_MAX_MS', 300_000, 10, 3_600_000),
    leaseMs: read.integer('AUDIT_STREAM_LEASE_MS', 30_000, 12_000, 3_600_000),
  };

  const listReadTimeLimitMs = read.integer('LIST_READ_TIME_LIMIT_MS', 5000, 10, 600_000);
  const idpTimeoutMs = read.integer('IDP_TIMEOUT_MS', 10_000, 100, 60_000);
  const clientJwksCacheMs = read.integer('CLIENT_JWKS_CACHE_MS', 300_000, 1000, 86_400_000);
  const httpKeepAliveTimeoutMs = read.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1000, 600_000);
  // The operator's own reverse proxies, whose X-Forwarded-For names the client (docs/operations.md, "Behind a reverse
  // proxy"); none by default, so a client's own header is never believed.
  const trustedProxies = read
    .string('TRUSTED_PROXIES', '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  try {
    compileTrustedProxies(trustedProxies);
  } catch (error) {
    problems.push(`TRUSTED_PROXIES must list IP addresses, CIDR ranges, loopback, linklocal or uniquelocal: ${(error as Error).message}`);
  }
  const domainVerification = {
    dnsServers: read
      .string('DOMAIN_VERIFICATION_DNS_SERVERS', '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    httpsPort: read.integer('DOMAIN_VERIFICATION_HTTPS_PORT', 443, 1, 65535),
  };
  const badServer = domainVerification.dnsServers.find((s) => !DNS_SERVER.test(s));
  if (badServer !== undefined) problems.push(`DOMAIN_VERIFICATION_DNS_SERVERS must list IP addresses, each with an optional :port, got "${badServer}"`);
  const mail = readMailConfig(read, instanceDomain, problems);
  // As webhooks (docs/oauth-profiles.md, "Delivery"): first retry after about 5 s, given up after 24 h.
  const backchannelLogout = {
    retryBaseMs: read.integer('BACKCHANNEL_LOGOUT_RETRY_BASE_MS', 5000, 10, 3_600_000),
    retryWindowMs: read.integer('BACKCHANNEL_LOGOUT_RETRY_WINDOW_MS', 86_400_000, 0, 30 * 86_400_000),
    // An attempt waits at most half of it (and at most 10 s), so no attempt outlives its lease.
    leaseMs: read.integer('BACKCHANNEL_LOGOUT_LEASE_MS', 30_000, 1000, 3_600_000),
    pollMs: read.integer('BACKCHANNEL_LOGOUT_POLL_MS', 5000, 10, 60_000),
  };

  return {
    port,
    publicUrl,
    dataDir,
    database,
    masterKey,
    workers,
    logLevel,
    instanceDomain,
    bootstrapAdminPassword,
    bcryptCost,
    bodyLimitBytes,
    importBodyLimitBytes,
    loginRateLimit,
    dynamicRegistrationBounds,
    oidcPurgeIntervalMs,
    keyPollMs,
    samlLogoutPollMs,
    devicePollIntervalSeconds,
    management,
    signingAlg,
    webhooks,
    provisioning,
    auditStreams,
    listReadTimeLimitMs,
    outboundAllowPrivateNetworks,
    idpTimeoutMs,
    clientJwksCacheMs,
    httpKeepAliveTimeoutMs,
    trustedProxies,
    domainVerification,
    mail,
    backchannelLogout,
  };
}

/** A DNS server as Resolver.setServers takes it: IPv4 or bracketed IPv6, with an optional port. */
const DNS_SERVER = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\]|[0-9a-f:]+)(:\d{1,5})?$/i;

function readMailConfig(read: EnvReader, instanceDomain: string, problems: string[]): MailConfig {
  const smtpUrl = read.optional('SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]+/.test(smtpUrl))
    problems.push(`SMTP_URL must be smtp://host:port or smtps://host:port, got "${redactUrl(smtpUrl)}"`);
  const from = read.string('MAIL_FROM', `Portcullis <no-reply@${instanceDomain}>`);
  if (/[\r\n]/.test(from) || !/@/.test(from)) problems.push('MAIL_FROM must be one address, e.g. "Portcullis <no-reply@example.com>"');
  return {
    smtpUrl,
    requireTls: read.boolean('SMTP_REQUIRE_TLS', false),
    from,
    // As webhooks (docs/webhooks.md, "Order, retries and crashes"): first retry after about 5 s, given up after 24 h.
    retryBaseMs: read.integer('MAIL_RETRY_BASE_MS', 5000, 10, 3_600_000),
    retryWindowMs: read.integer('MAIL_RETRY_WINDOW_MS', 86_400_000, 0, 30 * 86_400_000),
    // Outlasts nodemailer's connection and greeting timeouts, so no attempt outlives its lease.
    leaseMs: read.integer('MAIL_LEASE_MS', 120_000, 1000, 3_600_000),
    pollMs: read.integer('MAIL_POLL_MS', 1000, 10, 60_000),
  };
}

/** SQLITE_BUSY_TIMEOUT_MS and SQLITE_CHECKPOINT_IDLE_MS when unset. */
const SQLITE_DEFAULTS = { busyTimeoutMs: 5000, checkpointIdleMs: 30_000 };

function parseDatabaseUrl(value: string, problems: string[]): DatabaseConfig {
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') problems.push('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/portcullis.sqlite');
    return { type: 'sqlite', path: path === ':memory:' ? path : resolve(path), ...SQLITE_DEFAULTS };
  }
  if (value.startsWith('mysql://') || value.startsWith('mariadb://')) return parseMysqlUrl(value.replace(/^mariadb:/, 'mysql:'), problems);
  problems.push(`DATABASE_URL must start with sqlite: or mysql://, got "${redactUrl(value)}"`);
  return { type: 'sqlite', path: value, ...SQLITE_DEFAULTS };
}

/**
 * `mysql://user:password@host[:port][,host[:port]…]/database[?connectionLimit=n]`. WHATWG URLs take one host, so
 * a list is split off first and each host read as a URL of its own; `url` keeps the first one.
 */
function parseMysqlUrl(value: string, problems: string[]): DatabaseConfig {
  const [, userInfo = '', hostList = '', rest = ''] = /^mysql:\/\/([^@/?#]*@)?([^/?#]*)(.*)$/.exec(value) ?? [];
  try {
    const nodes = hostList.split(',').map((host) => {
      const node = new URL(`mysql://${host}`);
      if (node.hostname === '' || node.pathname !== '' || host.includes('@')) throw new Error(host);
      return { host: node.hostname.replace(/^\[(.*)\]$/, '$1'), port: node.port ? Number(node.port) : 3306 };
    });
    const url = new URL(`mysql://${userInfo}${hostList.split(',')[0]}${rest}`);
    if (url.pathname.length <= 1) problems.push('DATABASE_URL must name a database, e.g. mysql://root@127.0.0.1:3306/portcullis');
    return { type: 'mysql', url: url.toString(), nodes };
  } catch {
    problems.push(`DATABASE_URL is not a valid URL (a list of hosts is written host1:3306,host2:3306): "${redactUrl(value)}"`);
    return { type: 'mysql', url: value, nodes: [] };
  }
}

function isBase64Key(value: string): boolean {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

/** Strips credentials so a configuration problem never prints a database password. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/[^@/]*@/, '//***@');
}

class EnvReader {
  /** Every name asked for, so that a misspelled one in the environment can be named (misspelled-variables.ts). */
  readonly names = new Set<string>();

  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  optional(name: string): string | undefined {
    this.names.add(name);
    const raw = this.env[name];
    return raw === undefined || raw === '' ? undefined : raw;
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    this.names.add(name);
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    this.names.add(name);
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  url(name: string, fallback: string): string {
    const raw = this.string(name, fallback);
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
      if (url.search || url.hash) throw new Error('query');
      return url.toString();
    } catch {
      this.problems.push(`${name} must be an absolute http(s) URL without query or fragment, got "${raw}"`);
      return fallback;
    }
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name, fallback);
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }
}
