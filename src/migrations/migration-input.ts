import type { MigrationRequestDto } from './api/migrations.dto.js';
import type { ExportReader } from './reading/export-reader.js';

/** A migration request: its envelope validated, its document still to be read, a part at a time. */
export interface MigrationInput {
  request: MigrationRequestDto;
  reader: ExportReader;
  close(): Promise<void>;
}
