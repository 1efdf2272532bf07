import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { loadMasterKey } from '../../common/crypto/master-key.js';

/**
 * The start-up problem for a master key that cannot open the signing keys this database already holds
 * (another deployment's MASTER_KEY, or a lost `master.key`), or undefined. Checked before any process
 * serves (by src/main.ts, which opens the data source), so the operator reads one line naming MASTER_KEY instead
 * of a decryption stack per worker.
 */
export async function masterKeyProblem(config: AppConfig, dataSource: DataSource): Promise<string | undefined> {
  const encryptor = new Encryptor(loadMasterKey(config));
  const [row]: { sealed: string }[] = await dataSource.query('SELECT private_jwk_encrypted AS sealed FROM signing_keys ORDER BY created_at DESC LIMIT 1');
  if (!row) return undefined;
  try {
    encryptor.decrypt(row.sealed);
    return undefined;
  } catch {
    const source = config.masterKey ? 'MASTER_KEY' : `MASTER_KEY (unset; read from ${config.dataDir}/master.key)`;
    return `${source} does not decrypt the signing keys in the database: it is not the key this instance was set up with`;
  }
}
