import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

export const DEFAULT_EMAIL_LIMIT = 50;
/** The most one page lists; also the default number kept per project (CAPTURED_EMAILS_KEEP). */
export const MAX_EMAIL_LIMIT = 200;

export class ListAuthEmailsQuery {
  @ApiPropertyOptional({
    description: 'Most emails returned, newest first',
    minimum: 1,
    maximum: MAX_EMAIL_LIMIT,
    default: DEFAULT_EMAIL_LIMIT,
  })
  // Query values are strings: converted here, so "abc", "1.5" and "" fail @IsInt/@Min (400).
  @ValidateIf((_o, v) => v !== undefined)
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_EMAIL_LIMIT)
  limit?: number;
}

export class AuthEmailResponse {
  @ApiProperty({ description: 'Increases with every captured email', example: 42 }) id!: number;

  @ApiProperty({
    description: 'What the email is about',
    example: 'signup',
    enum: ['signup', 'invite', 'recovery', 'magiclink', 'email_change'],
  })
  kind!: string;

  @ApiProperty({ description: 'Recipient address', example: 'ada@example.com' }) to!: string;

  @ApiProperty({ example: 'Confirm your signup' }) subject!: string;

  @ApiProperty({ description: 'HTML body; its links carry live one-time tokens' }) html!: string;

  @ApiProperty({ description: 'Plain-text body' }) text!: string;

  @ApiProperty({ description: 'ISO 8601' }) created_at!: string;
}
