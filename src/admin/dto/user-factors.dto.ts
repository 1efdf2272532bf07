import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FACTOR_TYPES } from '../../users/entities/user-factor.entity.js';
import type { FactorType } from '../../users/entities/user-factor.entity.js';

/** One active second factor of a user: what it is, never its secret, key or codes. */
export class UserFactorDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: FACTOR_TYPES }) type: FactorType;
  @ApiPropertyOptional({ description: 'the name the user gave it, if any' }) name?: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class UserFactorListDto {
  @ApiProperty({ type: [UserFactorDto] }) factors: UserFactorDto[];
  @ApiProperty() total: number;
}
