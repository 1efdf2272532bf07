import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A throw-away certificate authority and a certificate it signs for `ip` (127.0.0.1 unless told; `localhost` too),
 * in a temporary directory.
 */
export function throwAwayCa(dir: string, ip = '127.0.0.1'): { ca: string; key: string; cert: string } {
  const file = (name: string) => join(dir, name);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=Portcullis test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  run(['req', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', `/CN=${ip}`]);
  writeFileSync(file('leaf.ext'), `subjectAltName=IP:${ip},DNS:localhost\nbasicConstraints=CA:FALSE\n`);
  run([
    'x509',
    '-req',
    '-in',
    file('leaf.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('leaf.pem'),
    '-days',
    '1',
    '-extfile',
    file('leaf.ext'),
  ]);
  return { ca: file('ca.pem'), key: file('leaf.key'), cert: file('leaf.pem') };
}
