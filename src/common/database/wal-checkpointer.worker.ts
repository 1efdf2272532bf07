import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the checkpointer thread is started with (wal-checkpointer.ts). */
export interface CheckpointerData {
  path: string;
  intervalMs: number;
}

/**
 * The checkpointer's thread: its own connection to the service's SQLite file, running a PASSIVE checkpoint
 * when it starts, every interval, and when it is told to close. PASSIVE never waits for or blocks a reader or writer (https://sqlite.org/c3ref/wal_checkpoint_v2.html);
 * it syncs the WAL, copies what no reader still needs into the database file and syncs that, here, off the
 * event loop that serves requests. A checkpoint another process is running answers busy: skipped, the
 * next interval tries again.
 */
const { path, intervalMs } = workerData as CheckpointerData;
const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 0');

function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') parentPort!.postMessage({ error: String(error) });
  }
}

// At once: the thread is started because the WAL changed (wal-checkpointer.ts).
checkpoint();
const timer = setInterval(checkpoint, intervalMs);

// 'checkpoint' (with a number to answer): one now, for a writer that pauses for it (WalCheckpointer.checkpointNow).
parentPort!.on('message', (message: 'close' | { checkpoint: number }) => {
  if (message !== 'close') {
    checkpoint();
    parentPort!.postMessage({ checkpointed: message.checkpoint });
    return;
  }
  // A last one: the thread stops once the WAL is quiet, or at shutdown, and what was written since must not wait.
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort!.close();
});
