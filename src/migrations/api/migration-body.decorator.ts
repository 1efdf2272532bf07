import { createParamDecorator } from '@nestjs/common';
import type { ArgumentMetadata, ExecutionContext, PipeTransform } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error.js';
import type { MigrationInput } from '../migration-input.js';
import { asBadRequest } from '../reading/bad-request.js';
import { createValidationPipe } from '../../common/errors/validation.pipe.js';
import { DocumentFault } from '../migration-plan.js';
import { auth0Export, checkedText, keycloakExport, wholeExport } from '../reading/export-reader.js';
import type { ExportReader } from '../reading/export-reader.js';
import { JsonFile } from '../reading/json-file.js';
import type { Span } from '../reading/json-file.js';
import { MigrationRequestDto } from './migrations.dto.js';
import { SpooledBody } from './spooled-body.js';

/**
 * The migration body: its envelope validated like every admin body (unknown fields refused), the `document` (and
 * Auth0's `passwordHashes`) left in the file the body was written to (spooled-body.ts), for the runner to read a
 * part at a time. A body held in memory (one the general parser read, which the guard then refuses) is one part.
 */
class MigrationEnvelopePipe implements PipeTransform<unknown, Promise<MigrationInput>> {
  private readonly pipe = createValidationPipe();

  async transform(body: unknown): Promise<MigrationInput> {
    if (body instanceof SpooledBody) return this.spooled(body);
    const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
    const { document, passwordHashes, ...envelope } = isObject ? (body as Record<string, unknown>) : { document: undefined, passwordHashes: undefined };
    const request = await this.validated(isObject ? envelope : body);
    const reader: ExportReader = {
      skeleton: async () => document,
      async *users() {},
      request: () => ({ document, passwordHashes: passwordHashes as unknown[] | undefined }),
    };
    return { request, reader, close: async () => {} };
  }

  private async spooled(body: SpooledBody): Promise<MigrationInput> {
    const file = await JsonFile.open(body.path);
    try {
      if ((await file.kind(file.whole)) !== 'object') throw DomainError.invalid('the body must be a JSON object');
      const envelope: Record<string, unknown> = {};
      const spans: { document?: Span; passwordHashes?: Span } = {};
      for await (const { key, value } of file.members(file.whole, 'the body')) {
        if (key === 'document' || key === 'passwordHashes') spans[key] = value;
        else envelope[key] = checkedText(await file.parse(value, key), key);
      }
      const request = await this.validated(envelope);
      const reader = await readerOf(request, file, spans);
      return { request, reader, close: () => file.close() };
    } catch (error) {
      await file.close();
      throw asBadRequest(error);
    }
  }

  private async validated(envelope: unknown): Promise<MigrationRequestDto> {
    const metadata: ArgumentMetadata = { type: 'body', metatype: MigrationRequestDto };
    return (await this.pipe.transform(envelope, metadata)) as MigrationRequestDto;
  }
}

/** The source's reader of the document: Keycloak's users and Auth0's a part at a time, a ZITADEL organization whole. */
async function readerOf(request: MigrationRequestDto, file: JsonFile, spans: { document?: Span; passwordHashes?: Span }): Promise<ExportReader> {
  if (spans.passwordHashes !== undefined && request.source !== 'auth0') throw new DocumentFault('passwordHashes', 'is for auth0 exports only');
  switch (request.source) {
    case 'keycloak':
      return keycloakExport(file, spans.document, 'document');
    case 'zitadel':
      return wholeExport(file, spans.document, 'document');
    case 'auth0': {
      const hashes = spans.passwordHashes === undefined ? undefined : await everyLine(file, spans.passwordHashes);
      if (spans.document !== undefined && (await file.kind(spans.document)) === 'array') {
        const document = spans.document;
        return auth0Export(() => numbered(file.elements(document, 'document'), 'document'), hashes);
      }
      // No array: read whole, for the source's check to name.
      const whole = wholeExport(file, spans.document, 'document');
      return { ...whole, request: (skeleton) => ({ document: skeleton, passwordHashes: hashes }) };
    }
  }
}

/** The hash export's lines, held whole (about 200 bytes each); a value that is no array is left to the check. */
async function everyLine(file: JsonFile, span: Span): Promise<unknown[]> {
  if ((await file.kind(span)) !== 'array') return checkedText(await file.parse(span, 'passwordHashes'), 'passwordHashes') as unknown[];
  const lines: unknown[] = [];
  for await (const line of numbered(file.elements(span, 'passwordHashes'), 'passwordHashes')) lines.push(line);
  return lines;
}

async function* numbered(items: AsyncIterable<unknown>, path: string): AsyncIterable<unknown> {
  let index = 0;
  for await (const item of items) yield checkedText(item, `${path}[${index++}]`);
}

const RawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body);

/** `@MigrationBody()`: the request's validated envelope and a reader of its document. */
export const MigrationBody = () => RawBody(undefined, new MigrationEnvelopePipe());
