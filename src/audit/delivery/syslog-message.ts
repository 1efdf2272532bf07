import type { AuditRecord } from '../record/audit-record.js';

/** RFC 5424 §6.2.1: facility 13 ("log audit"), severity 6 ("informational"): PRI = 13 · 8 + 6. */
const PRI = 110;
/** RFC 5424 §6.2.7: MSGID is at most 32 printable US-ASCII characters. */
const MSGID_LENGTH = 32;

/**
 * One record as an RFC 5424 message (§6): `APP-NAME portcullis`, the event type as MSGID (cut to 32 characters; the
 * record carries it whole), no structured data, and the record's JSON as MSG. JSON escapes every control character,
 * so a message is always one line in a receiver's file.
 */
export function syslogMessage(record: AuditRecord, hostname: string, procId: string): string {
  const msgId = record.type.replace(/[^\x21-\x7e]/g, '_').slice(0, MSGID_LENGTH) || '-';
  return `<${PRI}>1 ${record.time} ${hostname} portcullis ${procId} ${msgId} - ${JSON.stringify(record)}`;
}

/** RFC 5425 §4.3 octet counting: `MSG-LEN SP SYSLOG-MSG`, the length in octets of the message's UTF-8 bytes. */
export function octetCounted(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
}

/** RFC 5424 §6.2.4: HOSTNAME is 1 to 255 printable US-ASCII characters. */
export function syslogHostname(publicUrl: string): string {
  return new URL(publicUrl).hostname.replace(/[^\x21-\x7e]/g, '_').slice(0, 255) || '-';
}
