import type * as XmlDom from '@xmldom/xmldom';
import { onFirstUse } from '../modules/on-first-use.js';

// Loaded at the first SAML document, not at start-up (src/common/modules/on-first-use.ts).
const xmldom = onFirstUse<typeof XmlDom>('@xmldom/xmldom');

export const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
export const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const DS = 'http://www.w3.org/2000/09/xmldsig#';

/** SAML Bindings §3.4.3 and §3.5.3: RelayState MUST NOT exceed 80 bytes. */
export const MAX_RELAY_STATE_BYTES = 80;

/**
 * Parses SAML XML from outside (metadata, requests, responses) as data only: a document type declaration (and with it every
 * entity, internal or external) is refused before parsing (docs/saml.md, "SAML applications"; docs/federation.md, "SAML"), as is anything
 * that does not parse.
 */
export function parseXml(xml: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new XmlRefused('a document type declaration or an entity');
  const problems: string[] = [];
  const doc = new (xmldom().DOMParser)({
    errorHandler: { warning: () => undefined, error: (m: string) => problems.push(m), fatalError: (m: string) => problems.push(m) },
  }).parseFromString(xml, 'text/xml');
  if (problems.length > 0 || !doc.documentElement) throw new XmlRefused(`not well-formed XML (${problems[0] ?? 'empty'})`);
  return doc as unknown as Document;
}

export class XmlRefused extends Error {}

/** Descendants of `node` named `localName` in namespace `ns`. */
export function elements(node: Document | Element, ns: string, localName: string): Element[] {
  return Array.from(node.getElementsByTagNameNS(ns, localName));
}

export function text(node: Element | undefined): string {
  return (node?.textContent ?? '').trim();
}

/** Text or an attribute value in XML we write (XML 1.0 §2.4, §3.3.3): every markup character escaped. */
export function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** The direct children of `node` named `localName` in namespace `ns` (never a descendant deeper down: no wrapped copy). */
export function children(node: Element, ns: string, localName: string): Element[] {
  return Array.from(node.childNodes).filter(
    (child): child is Element => child.nodeType === 1 && (child as Element).namespaceURI === ns && (child as Element).localName === localName,
  );
}
