import { v7 as uuidv7 } from 'uuid';

/**
 * New resource id: a UUIDv7, time-ordered so that InnoDB primary-key inserts stay append-only
 * and ids sort roughly by creation.
 */
export function newId(): string {
  return uuidv7();
}
