import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../support/service.js';
import { SIMPLESAMLPHP, makeKeyPair, php, simpleSamlPhpDir, startPhpServer, writeSimpleSamlPhpConfig } from '../../support/simplesamlphp-base.js';

export { simpleSamlPhpMissing, simpleSamlPhpSkipReason } from '../../support/simplesamlphp-base.js';

const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/** The SP's authentication source (SimpleSAMLphp's conventional name): it is the last path segment of ACS, SLO and metadata. */
const AUTH_SOURCE = 'default-sp';

export interface SimpleSamlSpLoginOptions {
  /** `ForceAuthn="true"` in the AuthnRequest. */
  forceAuthn?: boolean;
  /** `IsPassive="true"` in the AuthnRequest. */
  isPassive?: boolean;
  /** A `RequestedAuthnContext` with this `AuthnContextClassRef` (Comparison="exact"). */
  authnContextClassRef?: string;
  /** How the AuthnRequest travels to the IdP: HTTP-Redirect (default, 302 to the SSO URL) or HTTP-POST (an auto-submitting form). */
  binding?: 'redirect' | 'post';
}

/** Why the SP has no session: the IdP's SAML status (ErrorURL), or any other failure SimpleSAMLphp showed. */
export interface SimpleSamlSpError {
  /** The top-level SAML status code, e.g. urn:oasis:names:tc:SAML:2.0:status:Responder. */
  statusCode?: string;
  /** The second-level status code, e.g. urn:oasis:names:tc:SAML:2.0:status:NoPassive. */
  subStatusCode?: string | null;
  statusMessage?: string | null;
  /** SimpleSAMLphp's error code when it showed an error page (e.g. UNHANDLEDEXCEPTION). */
  errorCode?: string;
  /** The innermost exception: `Class: message`. */
  message: string;
  /** Every `Caused by:` line of SimpleSAMLphp's report, outermost first. */
  causes?: string[];
  /** The page that failed (e.g. the ACS URL). */
  url?: string;
}

/** What resultUrl answers: the SP's session, and the error a login came back with (via ErrorURL). */
export interface SimpleSamlSpResult {
  authenticated: boolean;
  nameId?: { value: string; format: string | null; nameQualifier: string | null; spNameQualifier: string | null };
  attributes?: Record<string, string[]>;
  authnContextClassRef?: string | null;
  sessionIndex?: string | null;
  /** The IdP's entity id (the Issuer the SP accepted). */
  idp?: string | null;
  authnInstant?: number | null;
  error?: SimpleSamlSpError;
}

export interface SimpleSamlSp {
  /** `http://127.0.0.1:<port>`: the same site as the IdP under test (see startSimpleSamlSp). */
  baseUrl: string;
  /** SimpleSAMLphp's default: the SP's metadata URL. */
  entityId: string;
  /** `<baseUrl>/module.php/saml/sp/saml2-acs.php/default-sp` (HTTP-POST; also the AssertionConsumerServiceURL of every AuthnRequest). */
  acsUrl: string;
  /** `<baseUrl>/module.php/saml/sp/saml2-logout.php/default-sp` (HTTP-Redirect). */
  sloUrl: string;
  metadataUrl: string;
  /** The SP's metadata as SimpleSAMLphp serves it, to register at the IdP. */
  metadataXml: string;
  /** The SP's certificate (PEM): its AuthnRequest/LogoutRequest signing key and assertion encryption key. */
  certificatePem: string;
  /** The SP's private key (PEM), e.g. for a test that decrypts what the IdP encrypted. */
  privateKeyPem: string;
  /** The IdP's entity id as read from its metadata. */
  idpEntityId: string;
  /** A page that starts a login at the IdP (always a new AuthnRequest) and returns to resultUrl (also on error). */
  loginUrl(options?: SimpleSamlSpLoginOptions): string;
  /** JSON (SimpleSamlSpResult) about the current SP session. */
  resultUrl: string;
  /** A page that starts SP-initiated single logout and returns to resultUrl. */
  logoutUrl: string;
  /** The raw (base64-decoded) SAML Response XML last POSTed to the ACS. */
  lastResponseXml(): string | undefined;
  /** The raw XML of the SAML message last received at the SLO endpoint (LogoutRequest or LogoutResponse, either binding). */
  lastLogoutMessageXml(): string | undefined;
  /** The error of the last login (cleared by the next login page or Response at the ACS): the IdP's SAML status shown by
   *  resultUrl, or what SimpleSAMLphp showed as JSON instead of its HTML error page (e.g. the ACS rejecting a Response). */
  lastError(): SimpleSamlSpError | undefined;
  stop(): Promise<void>;
}

export interface SimpleSamlSpOptions {
  /** The IdP's metadata, as Portcullis serves it at /saml/v2/{orgId}/metadata (one EntityDescriptor with an IDPSSODescriptor). */
  idpMetadataXml: string;
  /** Sign AuthnRequests and LogoutRequests (rsa-sha256; SimpleSAMLphp's `sign.authnrequest`, `sign.logout`); default false,
   *  whatever the IdP's WantAuthnRequestsSigned says. */
  signAuthnRequests?: boolean;
  /** Reject assertions that are not encrypted to the SP's certificate (SimpleSAMLphp's `assertion.encryption`). */
  encryptedAssertions?: boolean;
  /** The NameIDPolicy Format of every AuthnRequest (AllowCreate="true"); SimpleSAMLphp's default is transient. */
  nameIdFormat?: string;
  /** Reject LogoutRequests/LogoutResponses from the IdP without a valid signature (SimpleSAMLphp's `validate.logout`). */
  requireSignedLogout?: boolean;
}

/**
 * Debian's SimpleSAMLphp (1.19) as a SAML 2.0 service provider of an IdP under test, under PHP's built-in server on a
 * free port with its own configuration in a temp dir, stopped by PID. One `saml:SP` authentication source
 * ('default-sp') bound to the one IdP of `idpMetadataXml` (parsed by SimpleSAMLphp's own SAMLParser into
 * metadata/saml20-idp-remote.php), with a key pair made by openssl.
 *
 * Host: 127.0.0.1, like the IdP under test. Ports do not make sites: the IdP's auto-submitting form POSTs the
 * Response to the ACS same-site, so the SP's SameSite=Lax session cookie, which holds the AuthnRequest's state, comes
 * along (cross-site, as from localhost, a browser would drop it and the ACS would take the answer as unsolicited).
 * Cookies do not tell ports apart either, so the SP's cookie names carry its port (no clash with Portcullis' cookies,
 * or another SP's).
 *
 * A router in front of SimpleSAMLphp saves what arrives at the ACS and SLO endpoints (lastResponseXml,
 * lastLogoutMessageXml) and serves the pages /portcullis/login, /portcullis/result (also at '/', where an
 * IdP-initiated Response without RelayState lands) and /portcullis/logout. SimpleSAMLphp's error page is replaced by
 * JSON (errors.show_function), kept for lastError().
 *
 * What the IdP gets (SimpleSAMLphp 1.19.7): an AuthnRequest with ID, Version, IssueInstant, Destination (the SSO URL
 * of the IdP's metadata), AssertionConsumerServiceURL = acsUrl, ProtocolBinding HTTP-POST, Issuer = entityId (no
 * Format), NameIDPolicy (transient unless nameIdFormat, AllowCreate="true"), ForceAuthn/IsPassive only when asked,
 * RequestedAuthnContext (Comparison absent, i.e. exact) when asked; RelayState = resultUrl. Signed (signAuthnRequests):
 * by HTTP-Redirect SigAlg=rsa-sha256 + Signature query parameters, by HTTP-POST an enveloped ds:Signature (exc-c14n,
 * rsa-sha256, sha256 digest, the SP's certificate in KeyInfo) after the Issuer. What it accepts at the ACS: a Response
 * whose Destination (if present) is acsUrl, with a valid signature on the Response or on the Assertion (either is
 * enough; any of rsa-sha1/256/384/512), Audience = entityId, a bearer SubjectConfirmationData with Recipient = acsUrl
 * and InResponseTo = the request's ID, and an AuthnStatement. Encrypted assertions (encryptedAssertions): the key
 * transported by rsa-oaep-mgf1p (rsa-1_5 is refused, xmlenc11#rsa-oaep fails with an algorithm mismatch), the data by
 * aes128/192/256-cbc or -gcm.
 */
export async function startSimpleSamlSp(options: SimpleSamlSpOptions): Promise<SimpleSamlSp> {
  const dir = simpleSamlPhpDir('portcullis-ssp-sp-', ['received', 'pages']);
  try {
    return await start(dir, options);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function start(dir: string, options: SimpleSamlSpOptions): Promise<SimpleSamlSp> {
  makeKeyPair(dir, 'sp', 'simplesamlphp-sp-test');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const module = (path: string) => `${baseUrl}/module.php/saml/sp/${path}/${AUTH_SOURCE}`;
  const metadataUrl = module('metadata.php');
  const acsUrl = module('saml2-acs.php');
  const sloUrl = module('saml2-logout.php');
  const resultUrl = `${baseUrl}/portcullis/result`;
  const received = join(dir, 'received');

  const idp = parseIdpMetadata(options.idpMetadataXml);
  writeFileSync(
    join(dir, 'metadata/saml20-idp-remote.php'),
    `${idp.php}
// /portcullis/login?binding=... keeps only that binding's SingleSignOnService: SimpleSAMLphp 1.19 always prefers
// HTTP-Redirect over HTTP-POST (getEndpointPrioritizedByBinding), whatever the metadata's order.
if (defined('PORTCULLIS_SSO_BINDING')) {
  foreach ($metadata as &$idp) {
    $idp['SingleSignOnService'] = array_values(array_filter($idp['SingleSignOnService'], function ($endpoint) {
      return $endpoint['Binding'] === PORTCULLIS_SSO_BINDING;
    }));
  }
  unset($idp);
}
`,
  );

  writeFileSync(
    join(dir, 'config/hooks.php'),
    `<?php
if (!class_exists('PortcullisSpHooks')) {
  /** SimpleSAMLphp's error page as JSON (errors.show_function), saved for lastError(). */
  class PortcullisSpHooks
  {
    public static function showError($config, array $data)
    {
      $trace = explode("\\n", $data['error']['exceptionTrace'] ?? '');
      $causes = [];
      foreach ($trace as $line) {
        if (strpos($line, 'Caused by: ') === 0) $causes[] = substr($line, strlen('Caused by: '));
      }
      $error = [
        'errorCode' => $data['errorCode'] ?? null,
        'message' => count($causes) > 0 ? end($causes) : ($data['error']['exceptionMsg'] ?? ''),
        'causes' => $causes,
        'url' => $data['error']['url'] ?? null,
      ];
      $json = json_encode(['authenticated' => false, 'error' => $error], JSON_UNESCAPED_SLASHES | JSON_PRETTY_PRINT);
      file_put_contents(${php(`${received}/last-error.json`)}, $json);
      header('Content-Type: application/json');
      echo $json;
      exit;
    }
  }
}
`,
  );
  writeSimpleSamlPhpConfig(
    dir,
    baseUrl,
    port,
    {
      'enable.saml20-idp': 'false',
      'module.enable': `['core' => true, 'saml' => true]`,
      'session.cookie.name': php(`PortcullisSp${port}Session`),
      'session.phpsession.cookiename': php(`PortcullisSp${port}`),
      'session.authtoken.cookiename': php(`PortcullisSp${port}AuthToken`),
      'session.cookie.samesite': `'Lax'`,
      'errors.show_function': `['PortcullisSpHooks', 'showError']`,
    },
    `require_once __DIR__ . '/hooks.php';\n`,
  );

  const nameIdPolicy = options.nameIdFormat ? `  'NameIDPolicy' => ['Format' => ${php(options.nameIdFormat)}, 'AllowCreate' => true],\n` : '';
  writeFileSync(
    join(dir, 'config/authsources.php'),
    `<?php
$config = [
  'admin' => ['core:AdminPassword'],
  ${php(AUTH_SOURCE)} => [
    'saml:SP',
    'idp' => ${php(idp.entityId)},
    'privatekey' => 'sp.key',
    'certificate' => 'sp.crt',
    'signature.algorithm' => ${php(RSA_SHA256)},
    'sign.authnrequest' => ${options.signAuthnRequests ? 'true' : 'false'},
    'sign.logout' => ${options.signAuthnRequests ? 'true' : 'false'},
    'validate.logout' => ${options.requireSignedLogout ? 'true' : 'false'},
    'assertion.encryption' => ${options.encryptedAssertions ? 'true' : 'false'},
${nameIdPolicy}  ],
];
`,
  );

  writeFileSync(join(dir, 'pages/login.php'), loginPage(dir, resultUrl));
  writeFileSync(join(dir, 'pages/result.php'), resultPage(dir));
  writeFileSync(join(dir, 'pages/logout.php'), logoutPage(dir, resultUrl));
  const router = join(dir, 'router.php');
  writeFileSync(router, routerScript(dir));

  const server = await startPhpServer({ dir, port, baseUrl, readyUrl: metadataUrl, router });
  try {
    const metadata = await fetch(metadataUrl);
    const metadataXml = await metadata.text();
    if (!metadata.ok || !metadataXml.includes('SPSSODescriptor'))
      throw new Error(`SimpleSAMLphp's SP metadata (${metadata.status}): ${metadataXml.slice(0, 500)}`);
    const readReceived = (name: string) => {
      const path = join(received, name);
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    };
    return {
      baseUrl,
      entityId: metadataUrl,
      acsUrl,
      sloUrl,
      metadataUrl,
      metadataXml,
      certificatePem: readFileSync(join(dir, 'cert/sp.crt'), 'utf8'),
      privateKeyPem: readFileSync(join(dir, 'cert/sp.key'), 'utf8'),
      idpEntityId: idp.entityId,
      loginUrl(login: SimpleSamlSpLoginOptions = {}) {
        const query = new URLSearchParams();
        if (login.forceAuthn !== undefined) query.set('forceAuthn', String(login.forceAuthn));
        if (login.isPassive !== undefined) query.set('isPassive', String(login.isPassive));
        if (login.authnContextClassRef !== undefined) query.set('authnContextClassRef', login.authnContextClassRef);
        query.set('binding', login.binding ?? 'redirect');
        return `${baseUrl}/portcullis/login?${query}`;
      },
      resultUrl,
      logoutUrl: `${baseUrl}/portcullis/logout`,
      lastResponseXml: () => readReceived('acs-response.xml'),
      lastLogoutMessageXml: () => readReceived('slo-message.xml'),
      lastError: () => {
        const json = readReceived('last-error.json');
        return json === undefined ? undefined : (JSON.parse(json) as { error: SimpleSamlSpError }).error;
      },
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The IdP's entity id and metadata/saml20-idp-remote.php, by SimpleSAMLphp's own parser (SAMLParser::parseDescriptorsString). */
function parseIdpMetadata(xml: string): { entityId: string; php: string } {
  const script = `
require ${php(`${SIMPLESAMLPHP}/lib/_autoload.php`)};
$idps = [];
foreach (\\SimpleSAML\\Metadata\\SAMLParser::parseDescriptorsString(stream_get_contents(STDIN)) as $entityId => $parser) {
  $metadata = $parser->getMetadata20IdP();
  if ($metadata !== null) $idps[$entityId] = $metadata;
}
if (count($idps) !== 1) {
  fwrite(STDERR, 'expected one IdP (IDPSSODescriptor) in the metadata, found ' . count($idps));
  exit(1);
}
$entityId = array_key_first($idps);
$metadata = $idps[$entityId];
unset($metadata['entityDescriptor']);
echo json_encode(['entityId' => $entityId, 'php' => "<?php\\n\\$metadata[" . var_export($entityId, true) . '] = ' . var_export($metadata, true) . ";\\n"]);
`;
  let out: string;
  try {
    out = execFileSync('php', ['-r', script], { input: xml, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const stdout = (error as { stdout?: string }).stdout ?? '';
    throw new Error(`SimpleSAMLphp could not read the IdP metadata: ${stderr || stdout}`);
  }
  return JSON.parse(out) as { entityId: string; php: string };
}

function routerScript(dir: string): string {
  return `<?php
// php -S router: keep the SAML messages the SP receives, serve the harness's pages, leave the rest to SimpleSAMLphp.
$received = ${php(`${dir}/received`)};
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$save = function ($name, $xml) use ($received) {
  file_put_contents("$received/$name.tmp", $xml);
  rename("$received/$name.tmp", "$received/$name");
};
$message = function ($name) {
  if (isset($_POST[$name])) return base64_decode($_POST[$name]);
  if (isset($_GET[$name])) return gzinflate(base64_decode($_GET[$name]));
  return null;
};
if (strpos($path, '/module.php/saml/sp/saml2-acs.php/') === 0 && isset($_POST['SAMLResponse'])) {
  $save('acs-response.xml', base64_decode($_POST['SAMLResponse']));
  @unlink("$received/last-error.json");
}
if (strpos($path, '/module.php/saml/sp/saml2-logout.php/') === 0) {
  $xml = $message('SAMLRequest') ?? $message('SAMLResponse');
  if (is_string($xml)) $save('slo-message.xml', $xml);
}
if ($path === '/portcullis/login') @unlink("$received/last-error.json");
// '/' too: where SimpleSAMLphp sends an unsolicited (IdP-initiated) Response without RelayState.
$pages = ['/portcullis/login' => 'login.php', '/portcullis/result' => 'result.php', '/portcullis/logout' => 'logout.php', '/' => 'result.php'];
if (isset($pages[$path])) {
  require ${php(`${dir}/pages/`)} . $pages[$path];
  return true;
}
return false;
`;
}

/** Shared by the pages: SimpleSAMLphp's autoloader, a JSON answer, an error as JSON (saved for lastError()). */
const pageHead = (dir: string) => `<?php
require_once ${php(`${SIMPLESAMLPHP}/lib/_autoload.php`)};

function portcullis_json($value, $status = 200)
{
  http_response_code($status);
  header('Content-Type: application/json');
  echo json_encode($value, JSON_UNESCAPED_SLASHES | JSON_PRETTY_PRINT);
  exit;
}

function portcullis_error($e)
{
  $root = $e;
  while ($root->getPrevious() !== null) $root = $root->getPrevious();
  $error = ['message' => get_class($root) . ': ' . $root->getMessage()];
  if ($e instanceof \\SimpleSAML\\Module\\saml\\Error) {
    $error['statusCode'] = $e->getStatus();
    $error['subStatusCode'] = $e->getSubStatus();
    $error['statusMessage'] = $e->getStatusMessage();
  }
  file_put_contents(${php(`${dir}/received/last-error.json`)}, json_encode(['error' => $error], JSON_UNESCAPED_SLASHES | JSON_PRETTY_PRINT));
  return $error;
}
`;

function loginPage(dir: string, resultUrl: string): string {
  return `${pageHead(dir)}
$bindings = ['redirect' => ${php(BINDING.redirect)}, 'post' => ${php(BINDING.post)}];
$binding = $_GET['binding'] ?? 'redirect';
if (!isset($bindings[$binding])) portcullis_json(['error' => ['message' => "unknown binding $binding"]], 400);
define('PORTCULLIS_SSO_BINDING', $bindings[$binding]);
$params = ['ReturnTo' => ${php(resultUrl)}, 'ErrorURL' => ${php(resultUrl)}, 'KeepPost' => false];
if (isset($_GET['forceAuthn'])) $params['ForceAuthn'] = $_GET['forceAuthn'] === 'true';
if (isset($_GET['isPassive'])) $params['isPassive'] = $_GET['isPassive'] === 'true';
if (isset($_GET['authnContextClassRef'])) $params['saml:AuthnContextClassRef'] = $_GET['authnContextClassRef'];
try {
  (new \\SimpleSAML\\Auth\\Simple(${php(AUTH_SOURCE)}))->login($params);
} catch (\\Throwable $e) {
  portcullis_json(['authenticated' => false, 'error' => portcullis_error($e)], 500);
}
`;
}

function resultPage(dir: string): string {
  return `${pageHead(dir)}
use SimpleSAML\\Auth\\State;

$result = [];
if (isset($_REQUEST[State::EXCEPTION_PARAM])) {
  try {
    $state = State::loadExceptionState();
    $result['error'] = portcullis_error($state[State::EXCEPTION_DATA]);
  } catch (\\Throwable $e) {
    $result['error'] = portcullis_error($e);
  }
}
$as = new \\SimpleSAML\\Auth\\Simple(${php(AUTH_SOURCE)});
$result['authenticated'] = $as->isAuthenticated();
if ($result['authenticated']) {
  $nameId = $as->getAuthData('saml:sp:NameID');
  if ($nameId instanceof \\SAML2\\XML\\saml\\NameID) {
    $result['nameId'] = [
      'value' => $nameId->getValue(),
      'format' => $nameId->getFormat(),
      'nameQualifier' => $nameId->getNameQualifier(),
      'spNameQualifier' => $nameId->getSPNameQualifier(),
    ];
  } elseif (is_array($nameId)) {
    $result['nameId'] = [
      'value' => $nameId['Value'] ?? null,
      'format' => $nameId['Format'] ?? null,
      'nameQualifier' => $nameId['NameQualifier'] ?? null,
      'spNameQualifier' => $nameId['SPNameQualifier'] ?? null,
    ];
  }
  $result['attributes'] = (object) $as->getAttributes();
  $result['authnContextClassRef'] = $as->getAuthData('saml:sp:AuthnContext');
  $result['sessionIndex'] = $as->getAuthData('saml:sp:SessionIndex');
  $result['idp'] = $as->getAuthData('saml:sp:IdP');
  $result['authnInstant'] = $as->getAuthData('saml:AuthnInstant');
}
portcullis_json($result);
`;
}

function logoutPage(dir: string, resultUrl: string): string {
  return `${pageHead(dir)}
try {
  (new \\SimpleSAML\\Auth\\Simple(${php(AUTH_SOURCE)}))->logout(['ReturnTo' => ${php(resultUrl)}]);
} catch (\\Throwable $e) {
  portcullis_json(['authenticated' => false, 'error' => portcullis_error($e)], 500);
}
`;
}
