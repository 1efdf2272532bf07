import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AppConfig } from '../config/config.js';
import { ownerOnlyDir } from '../fs/owner-only.js';

/**
 * Returns the 32-byte master key: MASTER_KEY when set, else `$DATA_DIR/master.key`, generated on first start.
 * Signing keys are encrypted with it and secret hashes are keyed from it, so every process of one
 * deployment must see the same key.
 */
export function loadMasterKey(config: Pick<AppConfig, 'masterKey' | 'dataDir'>): Buffer {
  if (config.masterKey) return Buffer.from(config.masterKey, 'base64');
  const file = join(config.dataDir, 'master.key');
  if (!existsSync(file)) {
    ownerOnlyDir(config.dataDir);
    try {
      // 'wx' fails if another process created it first; then we read theirs.
      writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64-encoded 32-byte key`);
  return key;
}
