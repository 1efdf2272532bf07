import { connect as tcpConnect } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { isIP } from 'node:net';
import { guardedLookup } from '../../common/net/outbound-address.js';
import type { AuditRecord } from '../record/audit-record.js';
import { octetCounted, syslogMessage } from './syslog-message.js';

/** A batch not taken whole within this time is a failed attempt. */
export const SYSLOG_TIMEOUT_MS = 10_000;

export interface SyslogDestination {
  kind: 'syslog+tls' | 'syslog+tcp';
  host: string;
  port: number;
  /** PEM certificates the receiver's chain must end in; absent: the system's trusted authorities. */
  caCertificate: string | null;
  allowPrivateNetworks: boolean;
}

/**
 * Sends a batch of records to a syslog receiver (RFC 5425, or plain TCP with the same framing on loopback) and
 * resolves only once the receiver has read all of it. Syslog has no acknowledgement, and a write that succeeded may
 * still sit in a socket buffer when the receiver dies. So each batch has a connection of its own that this side
 * closes after the last record (TLS close_notify, then FIN): the receiver closes its side only after reading to
 * the end of the stream, so its close confirms the batch. A batch that does not end that way is sent again whole,
 * with the same sequences; receivers and `portcullis audit verify` drop repeats by `sequence`.
 */
export function sendSyslogBatch(to: SyslogDestination, records: AuditRecord[], hostname: string, signal: AbortSignal): Promise<void> {
  const frames = Buffer.concat(records.map((record) => octetCounted(syslogMessage(record, hostname, String(process.pid)))));
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let socket: Socket;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      if (error) {
        socket.destroy();
        reject(error);
      } else resolve();
    };
    const aborted = () => finish(new Error('stopped'));
    const timer = setTimeout(() => finish(new Error(`the receiver did not take the batch within ${SYSLOG_TIMEOUT_MS / 1000} s`)), SYSLOG_TIMEOUT_MS);
    // The receiver's end of the stream counts only after all of ours was handed over: one that closed first took less.
    let written = false;
    let ended = false;
    const send = () => socket.end(frames, () => (written = true));
    if (to.kind === 'syslog+tls') {
      socket = tlsConnect(
        {
          host: to.host,
          port: to.port,
          // RFC 5425 §5.2: the receiver is authenticated by its certificate, for the name the URL gives.
          ...(isIP(to.host) ? {} : { servername: to.host }),
          ...(to.caCertificate ? { ca: to.caCertificate } : {}),
          ...(to.allowPrivateNetworks ? {} : { lookup: guardedLookup as never }),
        },
        send,
      );
    } else {
      socket = tcpConnect({ host: to.host, port: to.port }, send);
    }
    socket.on('data', () => undefined); // a syslog receiver sends nothing back; reading keeps the socket flowing to its end
    socket.once('end', () => (ended = written));
    socket.once('error', (error) => finish(error));
    socket.once('close', (hadError) => finish(hadError || !ended ? new Error('the receiver closed the connection before it took the batch') : undefined));
    signal.addEventListener('abort', aborted);
  });
}
