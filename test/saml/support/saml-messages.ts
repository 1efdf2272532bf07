import { execFileSync } from 'node:child_process';
import { createSign, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

export const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const REFEDS_MFA = 'https://refeds.org/profile/mfa';

export interface AuthnRequestInput {
  issuer: string;
  destination?: string | null;
  acsUrl?: string | null;
  id?: string;
  issueInstant?: Date;
  forceAuthn?: boolean;
  isPassive?: boolean;
  mfa?: boolean;
  nameIdFormat?: string;
  /** Inserted before the root: a document type declaration, say. */
  prolog?: string;
}

/** An AuthnRequest as an SP writes one (SAML Core §3.4.1). */
export function authnRequestXml(input: AuthnRequestInput): { id: string; xml: string } {
  const id = input.id ?? `_${randomBytes(16).toString('hex')}`;
  const attributes = [
    `ID="${id}"`,
    'Version="2.0"',
    `IssueInstant="${(input.issueInstant ?? new Date()).toISOString()}"`,
    input.destination === null || input.destination === undefined ? '' : `Destination="${input.destination}"`,
    input.acsUrl ? `AssertionConsumerServiceURL="${input.acsUrl}"` : '',
    'ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"',
    input.forceAuthn ? 'ForceAuthn="true"' : '',
    input.isPassive ? 'IsPassive="true"' : '',
  ].filter(Boolean);
  const context = input.mfa
    ? `<samlp:RequestedAuthnContext Comparison="exact"><saml:AuthnContextClassRef>${REFEDS_MFA}</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>`
    : '';
  const policy = input.nameIdFormat ? `<samlp:NameIDPolicy Format="${input.nameIdFormat}" AllowCreate="true"/>` : '';
  const xml = `${input.prolog ?? ''}<samlp:AuthnRequest xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ${attributes.join(' ')}><saml:Issuer>${input.issuer}</saml:Issuer>${policy}${context}</samlp:AuthnRequest>`;
  return { id, xml };
}

/** The HTTP-Redirect binding's query (SAML Bindings §3.4.4.1), signed RSA-SHA256 with `keyPem` when given. */
export function redirectQuery(xml: string, options: { relayState?: string; keyPem?: string; name?: 'SAMLRequest' | 'SAMLResponse' } = {}): string {
  const pieces = [`${options.name ?? 'SAMLRequest'}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`];
  if (options.relayState !== undefined) pieces.push(`RelayState=${encodeURIComponent(options.relayState)}`);
  if (!options.keyPem) return pieces.join('&');
  pieces.push(`SigAlg=${encodeURIComponent('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256')}`);
  const signature = createSign('RSA-SHA256').update(pieces.join('&')).sign(options.keyPem, 'base64');
  return `${pieces.join('&')}&Signature=${encodeURIComponent(signature)}`;
}

/** An enveloped signature of the request's root, after its Issuer (for the HTTP-POST binding). */
export function signedRequest(xml: string, id: string, keyPem: string, certPem: string): string {
  const signature = new SignedXml({
    privateKey: keyPem,
    publicCert: certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: `//*[@ID='${id}']`,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signature.computeSignature(xml, { prefix: 'ds', location: { reference: `//*[@ID='${id}']/*[local-name()='Issuer']`, action: 'after' } });
  return signature.getSignedXml();
}

/** What an auto-posting page sends: its form's action, the decoded message and the RelayState. */
export interface PostedMessage {
  action: string;
  xml: string;
  relayState?: string;
}

export function postedMessage(html: string): PostedMessage {
  const action = /<form id="saml-post" method="post" action="([^"]+)"/.exec(html)?.[1];
  const message = /name="SAML(?:Response|Request)" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !message) throw new Error(`not an auto-posting SAML page:\n${html.slice(0, 500)}`);
  const relayState = /name="RelayState" value="([^"]*)"/.exec(html)?.[1];
  return {
    action: unescapeHtml(action),
    xml: Buffer.from(unescapeHtml(message), 'base64').toString('utf8'),
    relayState: relayState === undefined ? undefined : unescapeHtml(relayState),
  };
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * Verifies the signature of the element `node` (e.g. `urn:oasis:names:tc:SAML:2.0:protocol:Response`) with xmlsec1,
 * independently of the library that made it, trusting only `certificatePem`. Throws with xmlsec1's output if it fails.
 */
export function xmlsecVerify(xml: string, certificatePem: string, node: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-xmlsec-'));
  try {
    writeFileSync(join(dir, 'doc.xml'), xml);
    writeFileSync(join(dir, 'cert.pem'), certificatePem);
    execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'cert.pem'), '--id-attr:ID', node, '--node-name', node, join(dir, 'doc.xml')], {
      stdio: 'pipe',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
