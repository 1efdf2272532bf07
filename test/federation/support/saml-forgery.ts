import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/** What a forger edits in a genuine response before signing its assertion again. */
export type Edit = (response: Document, assertion: Element) => void;

/**
 * A genuine SAMLResponse (base64) taken apart: every signature removed, `edit` applied, and the assertion signed
 * again (RSA-SHA256, exclusive C14N, as IdPs sign) with `keyPem` — the IdP's own key to test one check at a time,
 * or an attacker's. The response itself stays unsigned, which the service accepts when the assertion is signed.
 */
export function resign(samlResponse: string, keyPem: string, certPem: string, edit: Edit = () => undefined): string {
  const doc = new DOMParser().parseFromString(Buffer.from(samlResponse, 'base64').toString('utf8'), 'text/xml') as unknown as Document;
  for (const signature of Array.from(doc.getElementsByTagNameNS(DS, 'Signature'))) signature.parentNode!.removeChild(signature);
  const assertion = doc.getElementsByTagNameNS(SAML, 'Assertion')[0];
  edit(doc, assertion);
  const xml = new XMLSerializer().serializeToString(doc as never);
  const signer = new SignedXml({
    privateKey: keyPem,
    publicCert: certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: EXC_C14N,
  });
  const id = assertion.getAttribute('ID');
  signer.addReference({
    xpath: `//*[local-name(.)='Assertion' and @ID='${id}']`,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N],
  });
  signer.computeSignature(xml, { location: { reference: `//*[local-name(.)='Assertion' and @ID='${id}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return Buffer.from(signer.getSignedXml()).toString('base64');
}

/** The first element `localName` of the SAML assertion namespace under `node`. */
export function first(node: Document | Element, localName: string): Element {
  return node.getElementsByTagNameNS(SAML, localName)[0];
}

/** An attacker's key and self-signed certificate (openssl), not in the IdP's metadata. */
export function attackerCredentials(): { keyPem: string; certPem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-attacker-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-subj', '/CN=attacker', '-days', '1'],
      { stdio: 'ignore' },
    );
    return { keyPem: readFileSync(join(dir, 'k.pem'), 'utf8'), certPem: readFileSync(join(dir, 'c.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An ISO instant `ms` from now, as SAML writes them. */
export function instant(ms: number): string {
  return new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
