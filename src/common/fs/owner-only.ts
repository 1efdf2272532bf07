import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/**
 * DATA_DIR and what it holds (the SQLite database and its -wal/-shm files, the master key, the bootstrap
 * secrets) are readable by the service's user only (SECURITY.md): a directory 0700, files 0600.
 */
export function ownerOnlyDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * Creates the file empty if it is missing, and makes it 0600. SQLite gives its -wal and -shm files the
 * database file's permissions, so securing the database before it is opened secures them too; existing
 * ones (from a version that did not) are fixed here as well.
 */
export function ownerOnlyFile(path: string, companions: string[] = []): void {
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  for (const companion of companions) if (existsSync(companion)) chmodSync(companion, 0o600);
}
