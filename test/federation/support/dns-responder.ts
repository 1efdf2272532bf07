import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** What the responder answers: TXT strings and IPv4 addresses per lower-case name. */
export interface DnsZone {
  txt: Map<string, string[]>;
  a: Map<string, string>;
}

export interface DnsResponder {
  /** `127.0.0.1:<port>`, as DOMAIN_VERIFICATION_DNS_SERVERS takes it. */
  server: string;
  zone: DnsZone;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_TXT = 16;

/**
 * A DNS server of one zone for the tests (RFC 1035 §4): answers each question from `zone`, NXDOMAIN for a name it
 * does not know, no answer for a type it does not hold. Only what a resolver's TXT, A and AAAA queries need:
 * one question per message, no compression in questions (resolvers send none), UDP on a free port.
 */
export async function startDnsResponder(): Promise<DnsResponder> {
  const zone: DnsZone = { txt: new Map(), a: new Map() };
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    const answer = answerTo(query, zone);
    if (answer) socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return { server: `127.0.0.1:${port}`, zone, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

function answerTo(query: Buffer, zone: DnsZone): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
    at += 1 + query[at];
  }
  const questionEnd = at + 5;
  const name = labels.join('.').toLowerCase();
  const type = query.readUInt16BE(at + 1);
  const known = zone.txt.has(name) || zone.a.has(name);
  const records: Buffer[] = [];
  if (type === TYPE_TXT)
    for (const text of zone.txt.get(name) ?? []) records.push(record(TYPE_TXT, Buffer.concat([Buffer.from([text.length]), Buffer.from(text, 'ascii')])));
  const address = zone.a.get(name);
  if (type === TYPE_A && address) records.push(record(TYPE_A, Buffer.from(address.split('.').map(Number))));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  // QR, the opcode and RD echoed, RA; RCODE 3 (NXDOMAIN) for an unknown name.
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0080 | (known ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

/** An answer for the question's name (a pointer to offset 12), class IN, TTL 0. */
function record(type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0);
  fixed.writeUInt16BE(type, 2);
  fixed.writeUInt16BE(1, 4);
  fixed.writeUInt32BE(0, 6);
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}
