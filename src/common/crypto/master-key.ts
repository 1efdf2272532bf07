import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
    createOnce(file, randomBytes(32).toString('base64') + '\n');
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64-encoded 32-byte key`);
  return key;
}

/**
 * Writes the whole key to a file of this process, then links it into place: a link either appears complete or
 * fails with EEXIST, so a process starting beside this one never reads a created but not yet written key.
 */
function createOnce(file: string, content: string): void {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, content, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
}
