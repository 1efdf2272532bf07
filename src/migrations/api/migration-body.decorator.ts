import { createParamDecorator } from '@nestjs/common';
import type { ArgumentMetadata, ExecutionContext, PipeTransform } from '@nestjs/common';
import { createValidationPipe } from '../../common/errors/validation.pipe.js';
import { MigrationRequestDto } from './migrations.dto.js';

/**
 * The migration body: its envelope validated like every admin body (unknown fields refused), the `document` (and
 * Auth0's `passwordHashes`) put back
 * untouched, since the shared pipe would deep-copy an export of 100,000 users through class-transformer.
 */
class MigrationEnvelopePipe implements PipeTransform<unknown, Promise<MigrationRequestDto>> {
  private readonly pipe = createValidationPipe();

  async transform(body: unknown): Promise<MigrationRequestDto> {
    const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
    const { document, passwordHashes, ...envelope } = isObject ? (body as Record<string, unknown>) : { document: undefined, passwordHashes: undefined };
    const metadata: ArgumentMetadata = { type: 'body', metatype: MigrationRequestDto };
    const dto = (await this.pipe.transform(isObject ? envelope : body, metadata)) as MigrationRequestDto;
    dto.document = document;
    dto.passwordHashes = passwordHashes;
    return dto;
  }
}

const RawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body);

/** `@MigrationBody()`: the request as a validated MigrationRequestDto whose document is still raw JSON. */
export const MigrationBody = () => RawBody(undefined, new MigrationEnvelopePipe());
