import type { ValueTransformer } from 'typeorm';

/**
 * Timestamps are stored as epoch milliseconds in BIGINT columns: the same bytes on SQLite and MySQL,
 * millisecond precision everywhere (SCIM meta timestamps) and no time-zone conversion in any driver.
 */
const epochMillis: ValueTransformer = {
  to: (value: Date | null | undefined) => (value == null ? value : value.getTime()),
  from: (value: string | number | null) => (value == null ? null : new Date(Number(value))),
};

/** JSON held in a TEXT column (portable across SQLite and MySQL). */
const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value == null ? null : JSON.parse(value)),
};

/** A JSON document as stored in a TEXT column. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
/**
 * How an entity declares a JSON document column. TypeORM's insert typing recurses into declared
 * object types without end, so entities name the column `object`; the values are JSON all the same.
 */
export type JsonDocument = object;

/** BIGINT read as a number (mysql2 returns BIGINT as a string); for counters well below 2^53. */
const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value == null ? null : Number(value)),
};

export const counterColumn = { type: 'bigint', transformer: bigintNumber } as const;
export const timestampColumn = { type: 'bigint', transformer: epochMillis } as const;
export const jsonColumn = { type: 'text', transformer: jsonText } as const;
