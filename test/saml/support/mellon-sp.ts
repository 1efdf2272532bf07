/**
 * Debian's Apache with mod_auth_mellon (0.18, on the Lasso library) as a SAML 2.0 service provider for the IdP
 * tests: `apache2 -f <conf> -DFOREGROUND` on a free port, from a configuration of its own in a temporary directory,
 * in a process group of its own, stopped by SIGTERM (SIGKILL after 5 s) and the directory removed. Ready in well
 * under a second. The shared parts (paths, server section, start/stop) are test/support/apache.ts, as for the
 * mod_auth_openidc harness.
 *
 * Why the odd directives are there:
 * - `MellonSPMetadataFile`: the SP metadata is written here (what `mellon_create_metadata` writes: AuthnRequestsSigned,
 *   signing and encryption KeyDescriptors, SingleLogoutService HTTP-Redirect at /mellon/logout, AssertionConsumerService
 *   HTTP-POST at /mellon/postResponse), so `metadataXml` is byte for byte what mellon uses and serves at /mellon/metadata.
 * - `<NameIDFormat>` in that metadata: mellon 0.18 has no directive for the NameIDPolicy it asks for; Lasso takes the
 *   first NameIDFormat of the SP's own metadata, and transient when there is none.
 * - `MellonSPPrivateKeyFile` always, and `signRequests` only sets AuthnRequestsSigned: Lasso signs an AuthnRequest
 *   when the SP metadata says AuthnRequestsSigned="true" or the IdP metadata says WantAuthnRequestsSigned="true", but
 *   it loads the key for every login request and fails ("Failed to load private key") without one. On the redirect
 *   binding the signature is the SigAlg/Signature query parameters (`MellonSignatureMethod`, default rsa-sha256).
 * - `MellonCookieSameSite lax` and `SetEnvIf Request_URI . MELLON_DISABLE_SAMESITE=1`: mellon puts `SameSite=None`
 *   on its cookie test cookie, which a browser drops without `Secure` (this is plain http); the variable keeps SameSite
 *   off every mellon cookie. The IdP must then be on the same site (http://127.0.0.1:<another port>) for the session
 *   cookie to come along on its POST to /mellon/postResponse.
 * - `MellonSamlResponseDump On`, `MellonSessionDump On`, `MellonIdP IDP`: the CGI's JSON carries MELLON_SAML_RESPONSE
 *   (the base64 SAMLResponse exactly as the IdP posted it, its signatures intact for xmlsec1), MELLON_SESSION (base64
 *   of Lasso's session dump: the assertion, with SessionIndex and the NameID's Format) and MELLON_IDP (the issuer).
 * - `MellonLockFile`: the session cache's mutex file would otherwise be /var/run/mod_auth_mellon.lock, shared by
 *   every mellon on the machine.
 * - The CGI is Perl with no modules (perl-base is Essential on Debian and apache2 depends on perl): /bin/sh cannot
 *   escape JSON.
 * - Apache started as root runs its children (which read the keys and metadata, and run the CGI) as www-data: the
 *   directory and its files are world-readable, the throwaway SP key included.
 *
 * Not possible with mellon 0.18: ForceAuthn (it always sends ForceAuthn="false"; `loginUrl`'s `isPassive` sends
 * IsPassive="true"), ProtocolBinding in the AuthnRequest, a NameIDPolicy without Format. SLO: it sends its
 * LogoutRequest by HTTP-Redirect only (to the IdP's HTTP-Redirect SingleLogoutService, signed like the AuthnRequest)
 * and takes the LogoutResponse by redirect or POST; it takes an IdP's LogoutRequest by redirect (it finds the session
 * by NameID, no cookie needed) or SOAP, and answers by redirect.
 */
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSelfSignedCredentials } from '../../../src/common/crypto/self-signed-credentials.js';
import { apacheServerBasics, inCi, missingApacheFiles, runApache } from '../../support/apache.js';
import { freePort } from '../../support/service.js';

const INSTALL = 'apt-get install -y apache2 libapache2-mod-auth-mellon';
/** Shipped with Debian's libapache2-mod-auth-mellon: the SP key, certificate and metadata an operator starts from. */
const MELLON_CREATE_METADATA = '/usr/sbin/mellon_create_metadata';

/** The modules the SP loads (prefork: mod_cgi needs a non-threaded MPM). */
const MODULE_FILES: Record<string, string> = {
  mpm_prefork_module: 'mod_mpm_prefork.so',
  authn_core_module: 'mod_authn_core.so',
  authz_core_module: 'mod_authz_core.so',
  authz_user_module: 'mod_authz_user.so',
  alias_module: 'mod_alias.so',
  cgi_module: 'mod_cgi.so',
  setenvif_module: 'mod_setenvif.so',
  auth_mellon_module: 'mod_auth_mellon.so',
};

export const MELLON_ENDPOINT_PATH = '/mellon';
export const ATTRIBUTES_PATH = '/protected/attributes';
export const LOGGED_OUT_PATH = '/loggedout.html';

/** What of Debian's Apache and mod_auth_mellon is not installed on this machine, if anything. */
export function missingMellon(): string[] {
  return [...missingApacheFiles(MODULE_FILES), ...(existsSync(MELLON_CREATE_METADATA) ? [] : [MELLON_CREATE_METADATA])];
}

/** Outside CI, a reason to skip (and a `# SKIPPED:` notice) when Apache or mod_auth_mellon is missing; in CI never. */
export function mellonSkipReason(): string | false {
  const missing = missingMellon();
  if (missing.length === 0 || inCi()) return false;
  const reason = `Apache with mod_auth_mellon is not installed (missing ${missing.join(', ')}); install it with \`${INSTALL}\``;
  console.log(`# SKIPPED: ${reason}`);
  return reason;
}

export interface MellonOptions {
  /** The IdP's metadata (an EntityDescriptor with an IDPSSODescriptor). Mellon sends AuthnRequests to its
   * SingleSignOnService by HTTP-Redirect, or by HTTP-POST when the IdP lists no redirect endpoint. */
  idpMetadataXml: string;
  /** Default true: AuthnRequestsSigned="true", and mellon signs its AuthnRequests. False: unsigned AuthnRequests
   * (unless the IdP metadata says WantAuthnRequestsSigned="true"); mellon keeps its key (to decrypt, and for SLO). */
  signRequests?: boolean;
  /** MellonSignatureMethod (default rsa-sha256, i.e. http://www.w3.org/2001/04/xmldsig-more#rsa-sha256). */
  signatureMethod?: 'rsa-sha1' | 'rsa-sha256' | 'rsa-sha384' | 'rsa-sha512';
  /** MellonAuthnContextClassRef: asked for in RequestedAuthnContext, and required of the assertion (else 403). */
  authnContextClassRef?: string | string[];
  /** MellonAuthnContextComparisonType (the RequestedAuthnContext's Comparison). */
  authnContextComparison?: 'exact' | 'minimum' | 'maximum' | 'better';
  /** An encryption KeyDescriptor in the SP metadata (the signing certificate again), so the IdP may encrypt. */
  encryptionKey?: boolean;
  /** The NameIDPolicy Format mellon asks for (the metadata's NameIDFormat); default: transient. */
  nameIdFormat?: string;
  /**
   * The SP's key, certificate and metadata made by mellon's own `mellon_create_metadata` (as an operator following
   * mellon's README does): no NameIDFormat, so mellon asks for transient; `signRequests`, `encryptionKey` and
   * `nameIdFormat` do not apply.
   */
  mellonCreatedMetadata?: boolean;
}

export interface MellonSp {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** `${origin}/mellon/metadata`. */
  entityId: string;
  /** The SP metadata mellon uses and serves at /mellon/metadata, to register at the IdP. */
  metadataXml: string;
  /** The SP's certificate (PEM): signing, and encryption with `encryptionKey`. */
  certificatePem: string;
  /** `${origin}/mellon/postResponse` (HTTP-POST). */
  acsUrl: string;
  /** `${origin}/mellon/logout` (HTTP-Redirect), for LogoutRequests and LogoutResponses. */
  sloUrl: string;
  /**
   * `${origin}/protected/attributes`: without a session, a redirect to the IdP (an AuthnRequest); with one, 200 and a
   * JSON object of every MELLON_* variable (MELLON_NAME_ID, MELLON_IDP, MELLON_ASSERTION_ID, MELLON_<attribute> and
   * MELLON_<attribute>_<n>, MELLON_SAML_RESPONSE, MELLON_SESSION) plus REMOTE_USER and AUTH_TYPE.
   */
  protectedUrl: string;
  /** `${origin}/loggedout.html`, a static page: logoutUrl's default ReturnTo. */
  loggedOutUrl: string;
  /** /mellon/login?ReturnTo=… (default: protectedUrl): an AuthnRequest whatever the session. */
  loginUrl(returnTo?: string, options?: { isPassive?: boolean }): string;
  /** /mellon/logout?ReturnTo=… (default: loggedOutUrl): SP-initiated SLO, a LogoutRequest by HTTP-Redirect. */
  logoutUrl(returnTo?: string): string;
  /** The server's output and error log so far, for assertion messages. */
  errorLog(): string;
  stop(): Promise<void>;
}

/** The variables mod_auth_mellon hands the application, as the CGI at protectedUrl answers them. */
export type MellonAttributes = Record<string, string>;

/** Starts mod_auth_mellon on a free port; fails when it cannot serve its metadata (it rejects the IdP's, say). */
export async function startMellon(options: MellonOptions): Promise<MellonSp> {
  const missing = missingMellon();
  if (missing.length > 0) throw new Error(`Apache with mod_auth_mellon is required in CI but missing: ${missing.join(', ')} (${INSTALL})`);
  const signRequests = options.signRequests ?? true;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const endpoint = `${origin}${MELLON_ENDPOINT_PATH}`;
  const entityId = `${endpoint}/metadata`;
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-mellon-'));
  // Apache started as root serves as www-data, which reads the keys and metadata (per child, at the first request) and runs the CGI.
  chmodSync(dir, 0o755);
  const { privateKeyPem, certificatePem, metadataXml } = options.mellonCreatedMetadata
    ? mellonCreatedMetadata(dir, entityId, endpoint)
    : await ownMetadata(port, { entityId, endpoint, signRequests, encryptionKey: options.encryptionKey ?? false, nameIdFormat: options.nameIdFormat });
  mkdirSync(join(dir, 'htdocs'), { mode: 0o755 });
  mkdirSync(join(dir, 'cgi'), { mode: 0o755 });
  writeFileSync(join(dir, 'htdocs', 'loggedout.html'), '<!DOCTYPE html><title>logged out</title><p id="logged-out">logged out of the app</p>\n', {
    mode: 0o644,
  });
  writeFileSync(join(dir, 'cgi', 'attributes'), ATTRIBUTES_CGI, { mode: 0o755 });
  writeFileSync(join(dir, 'sp-metadata.xml'), metadataXml, { mode: 0o644 });
  writeFileSync(join(dir, 'idp-metadata.xml'), options.idpMetadataXml, { mode: 0o644 });
  writeFileSync(join(dir, 'sp-cert.pem'), certificatePem, { mode: 0o644 });
  writeFileSync(join(dir, 'sp-key.pem'), privateKeyPem, { mode: 0o644 });
  const config = join(dir, 'httpd.conf');
  writeFileSync(config, httpdConf(dir, port, options), { mode: 0o644 });

  const protectedUrl = `${origin}${ATTRIBUTES_PATH}`;
  const loggedOutUrl = `${origin}${LOGGED_OUT_PATH}`;
  const { errorLog, stop } = await runApache(dir, config, [loggedOutUrl]);
  // Mellon reads both metadata files and the key at a child's first request: metadata Lasso rejects fails here, at once.
  const metadata = await fetch(entityId);
  if (metadata.status !== 200) {
    const log = errorLog();
    await stop();
    throw new Error(`mod_auth_mellon answered ${metadata.status} for its metadata (${entityId}); is the IdP metadata right?\n${log}`);
  }
  return {
    origin,
    entityId,
    metadataXml,
    certificatePem,
    acsUrl: `${endpoint}/postResponse`,
    sloUrl: `${endpoint}/logout`,
    protectedUrl,
    loggedOutUrl,
    loginUrl: (returnTo = protectedUrl, login = {}) => `${endpoint}/login?ReturnTo=${encodeURIComponent(returnTo)}${login.isPassive ? '&IsPassive=true' : ''}`,
    logoutUrl: (returnTo = loggedOutUrl) => `${endpoint}/logout?ReturnTo=${encodeURIComponent(returnTo)}`,
    errorLog,
    stop,
  };
}

interface SpCredentials {
  privateKeyPem: string;
  certificatePem: string;
  metadataXml: string;
}

async function ownMetadata(port: number, input: Omit<Parameters<typeof spMetadata>[0], 'certificatePem'>): Promise<SpCredentials> {
  const { privateKeyPem, certificatePem } = await newSelfSignedCredentials(`mellon-sp-${port}`);
  return { privateKeyPem, certificatePem, metadataXml: spMetadata({ ...input, certificatePem }) };
}

/** `mellon_create_metadata ENTITY-ID ENDPOINT-URL` in `dir`: it names its files after the entity id (non-alphanumerics as `_`). */
function mellonCreatedMetadata(dir: string, entityId: string, endpoint: string): SpCredentials {
  const work = join(dir, 'mellon-created');
  mkdirSync(work, { mode: 0o700 });
  execFileSync(MELLON_CREATE_METADATA, [entityId, endpoint], { cwd: work, stdio: 'pipe' });
  const base = join(work, entityId.replace(/[^0-9A-Za-z.]/g, '_').replace(/__+/g, '_'));
  return {
    privateKeyPem: readFileSync(`${base}.key`, 'utf8'),
    certificatePem: readFileSync(`${base}.cert`, 'utf8'),
    metadataXml: readFileSync(`${base}.xml`, 'utf8'),
  };
}

function spMetadata(input: {
  entityId: string;
  endpoint: string;
  certificatePem: string;
  signRequests: boolean;
  encryptionKey: boolean;
  nameIdFormat?: string;
}): string {
  const certificate = new X509Certificate(input.certificatePem).raw.toString('base64');
  const keyDescriptor = (use: string) => `    <KeyDescriptor use="${use}">
      <ds:KeyInfo>
        <ds:X509Data>
          <ds:X509Certificate>${certificate}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </KeyDescriptor>
`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escapeXml(input.entityId)}">
  <SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="${input.signRequests}" WantAssertionsSigned="true">
${keyDescriptor('signing')}${input.encryptionKey ? keyDescriptor('encryption') : ''}    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escapeXml(input.endpoint)}/logout"/>
${input.nameIdFormat ? `    <NameIDFormat>${escapeXml(input.nameIdFormat)}</NameIDFormat>\n` : ''}    <AssertionConsumerService index="0" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(input.endpoint)}/postResponse"/>
  </SPSSODescriptor>
</EntityDescriptor>
`;
}

function httpdConf(dir: string, port: number, options: MellonOptions): string {
  const classRefs = typeof options.authnContextClassRef === 'string' ? [options.authnContextClassRef] : (options.authnContextClassRef ?? []);
  const quote = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;
  return `${apacheServerBasics(dir, MODULE_FILES)}Listen 127.0.0.1:${port}
DocumentRoot "${dir}/htdocs"
<Directory "${dir}/htdocs">
  Require all granted
</Directory>
<Files "loggedout.html">
  ForceType text/html
</Files>
ScriptAlias ${ATTRIBUTES_PATH} "${dir}/cgi/attributes"
# No SameSite on mellon's cookies (its cookie test's SameSite=None needs Secure, and this is plain http).
SetEnvIf Request_URI . MELLON_DISABLE_SAMESITE=1

MellonLockFile "${dir}/mellon.lock"
MellonCacheSize 20
<Location />
  MellonEnable info
  MellonEndpointPath ${MELLON_ENDPOINT_PATH}
  MellonSPMetadataFile "${dir}/sp-metadata.xml"
  MellonSPCertFile "${dir}/sp-cert.pem"
  MellonSPPrivateKeyFile "${dir}/sp-key.pem"
  MellonIdPMetadataFile "${dir}/idp-metadata.xml"
${options.signatureMethod ? `  MellonSignatureMethod ${options.signatureMethod}\n` : ''}${classRefs.map((ref) => `  MellonAuthnContextClassRef ${quote(ref)}\n`).join('')}${options.authnContextComparison ? `  MellonAuthnContextComparisonType ${options.authnContextComparison}\n` : ''}  MellonCookieSameSite lax
  MellonSamlResponseDump On
  MellonSessionDump On
  MellonIdP IDP
</Location>
<Location /protected>
  AuthType Mellon
  MellonEnable auth
  Require valid-user
</Location>
`;
}

/** Every MELLON_* variable (but the SameSite switch above), REMOTE_USER and AUTH_TYPE, as one JSON object. */
const ATTRIBUTES_CGI = String.raw`#!/usr/bin/perl
sub j { my $s = shift; $s =~ s/(["\\])/\\$1/g; $s =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge; return "\"$s\""; }
my @keys = sort grep { (/^MELLON_/ && $_ ne 'MELLON_DISABLE_SAMESITE') || $_ eq 'REMOTE_USER' || $_ eq 'AUTH_TYPE' } keys %ENV;
print "Content-Type: application/json\r\nCache-Control: no-store\r\n\r\n{" . join(',', map { j($_) . ':' . j($ENV{$_}) } @keys) . "}\n";
`;

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
