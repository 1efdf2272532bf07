import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';

/** Not sent leaves a flag as it is; null is no flag state, so it is refused rather than stored. */
const unlessAbsent = ValidateIf((_: object, value: unknown) => value !== undefined);

export class SetFeaturesDto {
  @ApiPropertyOptional({ description: 'RFC 8693 token exchange at the token endpoint' })
  @unlessAbsent
  @IsBoolean()
  tokenExchange?: boolean;

  @ApiPropertyOptional({ description: 'impersonation through token exchange (also needs tokenExchange)' })
  @unlessAbsent
  @IsBoolean()
  impersonation?: boolean;
}

export class FeaturesDto {
  @ApiProperty() tokenExchange: boolean;
  @ApiProperty() impersonation: boolean;
}
