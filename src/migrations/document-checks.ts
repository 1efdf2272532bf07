import { DocumentFault } from './migration-plan.js';

/** The checks every source's reading of its document makes, each fault a DocumentFault naming its path. */
export type Json = Record<string, unknown>;

export function object(value: unknown, path: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DocumentFault(path, 'must be a JSON object');
  return value as Json;
}

export function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new DocumentFault(path, 'must be an array');
  return value;
}

export function text(value: unknown, path: string, required = false): void {
  if (value === undefined || value === null) {
    if (required) throw new DocumentFault(path, 'is required');
    return;
  }
  if (typeof value !== 'string') throw new DocumentFault(path, 'must be a string');
  if (required && value.trim() === '') throw new DocumentFault(path, 'must not be empty');
}

export function texts(value: unknown, path: string): void {
  list(value, path).forEach((item, i) => text(item, `${path}[${i}]`, true));
}

export function flag(value: unknown, path: string): void {
  if (value !== undefined && value !== null && typeof value !== 'boolean') throw new DocumentFault(path, 'must be true or false');
}
