import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

export class SetFeaturesDto {
  @ApiPropertyOptional({ description: 'RFC 8693 token exchange at the token endpoint' })
  @IsOptional()
  @IsBoolean()
  tokenExchange?: boolean;

  @ApiPropertyOptional({ description: 'impersonation through token exchange (also needs tokenExchange)' })
  @IsOptional()
  @IsBoolean()
  impersonation?: boolean;
}

export class FeaturesDto {
  @ApiProperty() tokenExchange: boolean;
  @ApiProperty() impersonation: boolean;
}
