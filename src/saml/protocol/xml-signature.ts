import { createSign, createVerify, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type * as XmlCrypto from 'xml-crypto';
import { onFirstUse } from '../../common/modules/on-first-use.js';
import { DS, children, parseXml, XmlRefused } from '../../common/xml/saml-xml.js';
import { ENVELOPED_SIGNATURE, EXCLUSIVE_C14N, RSA_SHA256, SHA256, SIGNATURE_ALGORITHMS } from './saml-names.js';

// Loaded at the first SAML message, not at start-up (src/common/modules/on-first-use.ts).
const xmlCrypto = onFirstUse<typeof XmlCrypto>('xml-crypto');

/** The key that signs: the instance's SAML signing key (src/saml/keys). */
export interface SamlSigner {
  /** Parsed once per key (SamlKeysService): parsing a PEM costs as much as a signature. */
  privateKey: KeyObject;
  certificatePem: string;
}

/**
 * Signs the element with this `ID` (an enveloped signature, RSA-SHA256, exclusive c14n) and places the signature
 * right after the element's own `Issuer`, as SAML Core §5.4.1 allows and Lasso (mod_auth_mellon) insists on. The
 * certificate goes in `KeyInfo` so that SPs matching it against metadata find it.
 */
export function signEnveloped(xml: string, id: string, signer: SamlSigner): string {
  const signature = new (xmlCrypto().SignedXml)({
    privateKey: signer.privateKey,
    publicCert: signer.certificatePem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: EXCLUSIVE_C14N,
    getKeyInfoContent: () => keyInfoOf(signer.certificatePem),
  });
  const element = `//*[@ID='${id}']`;
  signature.addReference({ xpath: element, digestAlgorithm: SHA256, transforms: [ENVELOPED_SIGNATURE, EXCLUSIVE_C14N] });
  signature.computeSignature(xml, { prefix: 'ds', location: { reference: `${element}/*[local-name()='Issuer']`, action: 'after' } });
  return signature.getSignedXml();
}

/** `ds:X509Data` of a certificate, made once per certificate: xml-crypto would parse the PEM on every signature. */
const keyInfos = new Map<string, string>();

function keyInfoOf(certificatePem: string): string {
  let keyInfo = keyInfos.get(certificatePem);
  if (keyInfo === undefined) {
    if (keyInfos.size >= 8) keyInfos.clear();
    keyInfo = `<ds:X509Data><ds:X509Certificate>${new X509Certificate(certificatePem).raw.toString('base64')}</ds:X509Certificate></ds:X509Data>`;
    keyInfos.set(certificatePem, keyInfo);
  }
  return keyInfo;
}

/**
 * Verifies the enveloped signature of a received document's root with the SP's certificate and returns the document
 * that was signed, parsed again from what xml-crypto verified: the caller reads only that (never nodes of the received
 * tree, which may carry a wrapped copy; XML Signature wrapping, CVE-2025-47949). The one reference must be the root.
 */
export function verifiedRoot(xml: string, root: Element, certificatePem: string): Element {
  const signatures = children(root, DS, 'Signature');
  if (signatures.length !== 1) throw new XmlRefused(signatures.length === 0 ? 'the request is not signed' : 'more than one signature');
  const id = root.getAttribute('ID');
  const verifier = new (xmlCrypto().SignedXml)({ publicCert: certificatePem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(signatures[0]!);
  const references = verifier.getReferences();
  if (references.length !== 1 || !id || references[0]!.uri !== `#${id}`) throw new XmlRefused('the signature does not cover the request');
  if (!/#rsa-sha(256|384|512)$/.test(verifier.signatureAlgorithm ?? '')) throw new XmlRefused('signature algorithm not accepted (RSA-SHA256 or stronger)');
  let valid: boolean;
  try {
    valid = verifier.checkSignature(xml);
  } catch {
    valid = false;
  }
  if (!valid) throw new XmlRefused('the signature does not verify');
  const signed = verifier.getSignedReferences();
  if (signed.length !== 1) throw new XmlRefused('the signature does not cover the request');
  return parseXml(signed[0]!).documentElement;
}

/**
 * SAML Bindings §3.4.4.1: a message by HTTP-Redirect is signed over `SAMLRequest=…&RelayState=…&SigAlg=…`, each value
 * URL-encoded exactly as it was sent. Verification uses the octets received, never re-encoded ones.
 */
export function redirectSignatureHolds(octets: string, sigAlg: string, signature: string, certificatePem: string): boolean {
  const hash = SIGNATURE_ALGORITHMS[sigAlg];
  if (!hash) return false;
  try {
    return createVerify(`RSA-${hash.toUpperCase()}`).update(octets).verify(certificatePem, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** Signs the octets of an HTTP-Redirect message with RSA-SHA256 (SAML Bindings §3.4.4.1), base64. */
export function redirectSignature(octets: string, signer: SamlSigner): string {
  return createSign('RSA-SHA256').update(octets).sign(signer.privateKey, 'base64');
}
