import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { MAX_RELAY_STATE_BYTES, XmlRefused } from '../../common/xml/saml-xml.js';

/** A request or response is at most this large, encoded and decoded: AuthnRequests and LogoutRequests are a few KB. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** A posted form: the base64 message (4/3 of its bytes) and a RelayState. */
export const SAML_FORM_LIMIT_BYTES = Math.ceil((MAX_MESSAGE_BYTES * 4) / 3) + 4096;

export type MessageName = 'SAMLRequest' | 'SAMLResponse';

/** A SAML message as a binding delivered it: the XML, its RelayState and, by HTTP-Redirect, what the signature covers. */
export interface ReceivedMessage {
  binding: 'redirect' | 'post';
  xml: string;
  relayState?: string;
  /** HTTP-Redirect's query signature (SAML Bindings §3.4.4.1): the octets signed, the algorithm and the signature. */
  querySignature?: { octets: string; sigAlg: string; signature: string };
}

/**
 * HTTP-Redirect (SAML Bindings §3.4.4): the message DEFLATEd, base64, URL-encoded, with RelayState, SigAlg and
 * Signature beside it. The signed octets are the query's own pieces, in the binding's order, as received.
 */
export function fromRedirect(rawQuery: string, name: MessageName): ReceivedMessage {
  const raw = new Map<string, string>();
  for (const piece of rawQuery.split('&')) {
    const at = piece.indexOf('=');
    const key = at < 0 ? piece : piece.slice(0, at);
    if (raw.has(key)) throw new XmlRefused(`${key} given twice`);
    raw.set(key, at < 0 ? '' : piece.slice(at + 1));
  }
  const encoded = raw.get(name);
  if (!encoded) throw new XmlRefused(`no ${name}`);
  const value = (key: string) => (raw.has(key) ? decodeURIComponent(raw.get(key)!.replace(/\+/g, ' ')) : undefined);
  let xml: string;
  try {
    xml = inflateRawSync(base64(value(name)!), { maxOutputLength: MAX_MESSAGE_BYTES }).toString('utf8');
  } catch {
    throw new XmlRefused(`${name} is not DEFLATE-encoded base64 of at most ${MAX_MESSAGE_BYTES} bytes`);
  }
  const relayState = value('RelayState');
  const sigAlg = value('SigAlg');
  const signature = value('Signature');
  const signedKeys = [name, ...(raw.has('RelayState') ? ['RelayState'] : []), 'SigAlg'];
  return {
    binding: 'redirect',
    xml,
    relayState: checkedRelayState(relayState),
    querySignature: sigAlg && signature ? { octets: signedKeys.map((key) => `${key}=${raw.get(key)}`).join('&'), sigAlg, signature } : undefined,
  };
}

/** HTTP-POST (SAML Bindings §3.5.4): the message base64 in a form field, signed (if at all) inside the XML. */
export function fromPost(body: Record<string, unknown>, name: MessageName): ReceivedMessage {
  const encoded = body[name];
  if (typeof encoded !== 'string' || encoded === '') throw new XmlRefused(`no ${name}`);
  const xml = base64(encoded).toString('utf8');
  const relayState = body.RelayState;
  if (relayState !== undefined && typeof relayState !== 'string') throw new XmlRefused('RelayState given twice');
  return { binding: 'post', xml, relayState: checkedRelayState(relayState) };
}

/** A message for HTTP-Redirect: DEFLATE, base64 (SAML Bindings §3.4.4.1); the caller URL-encodes and signs. */
export function deflated(xml: string): string {
  return deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64');
}

function base64(value: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (compact.length > Math.ceil((MAX_MESSAGE_BYTES * 4) / 3) + 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw new XmlRefused(`not base64 of at most ${MAX_MESSAGE_BYTES} bytes`);
  }
  return Buffer.from(compact, 'base64');
}

/** RelayState is opaque to the IdP, returned as is, and at most 80 bytes (SAML Bindings §3.4.3, §3.5.3). */
export class RelayStateTooLong extends XmlRefused {}

function checkedRelayState(relayState: string | undefined): string | undefined {
  if (relayState !== undefined && Buffer.byteLength(relayState, 'utf8') > MAX_RELAY_STATE_BYTES) {
    throw new RelayStateTooLong(`RelayState is longer than ${MAX_RELAY_STATE_BYTES} bytes`);
  }
  return relayState;
}
