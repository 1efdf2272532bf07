import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One problem of a refused request (`ErrorDetail` of src/common/errors/domain-error.ts). */
export class ApiErrorDetailDto {
  @ApiPropertyOptional({ description: 'the request field the problem is about, dotted', example: 'profile.firstName' })
  field?: string;

  @ApiProperty({ example: 'profile.firstName should not be empty' })
  message: string;
}

/**
 * The admin and management APIs' error body (docs/product-rules.md, "API"), as ApiExceptionFilter and the
 * JSON body parser write it: the HTTP status again, an untranslated message, and the per-field details.
 */
export class ApiErrorDto {
  @ApiProperty({ description: 'the HTTP status', example: 400 })
  code: number;

  @ApiProperty({ example: 'invalid request: profile.firstName should not be empty' })
  message: string;

  @ApiProperty({ type: [ApiErrorDetailDto], description: 'empty unless the error is about fields of the request' })
  details: ApiErrorDetailDto[];
}
