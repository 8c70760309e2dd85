import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsInt,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * For settings that cannot be cleared: every value sent is validated, so `null` is refused.
 * @IsOptional() would let `null` through to a NOT NULL column (a 500).
 */
const IfPresent = () => ValidateIf((_o, v) => v !== undefined);

/** Validates a field that is present and not null: for settings that `null` clears. */
const IfSet = () => ValidateIf((_o, v) => v !== null && v !== undefined);

/** PATCH body: every field optional; `null` clears an SMTP field and is refused elsewhere. */
export class UpdateAuthConfigDto {
  @ApiPropertyOptional({ example: 'https://app.example.com' })
  @IfPresent()
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  site_url?: string;

  @ApiPropertyOptional({
    description: 'Comma-separated redirect URLs allowed besides site_url',
    example: 'http://localhost:5173/**',
  })
  @IfPresent()
  @IsString()
  @MaxLength(8192)
  uri_allow_list?: string;

  @ApiPropertyOptional({
    description: 'true: sign-up answers with a session, no email confirmation',
  })
  @IfPresent()
  @IsBoolean()
  mailer_autoconfirm?: boolean;

  @ApiPropertyOptional({
    description: 'Access token lifetime in seconds',
    minimum: 30,
    maximum: 604800,
  })
  @IfPresent()
  @IsInt()
  @Min(30)
  @Max(604800)
  jwt_exp?: number;

  @ApiPropertyOptional({ minimum: 6, maximum: 128 })
  @IfPresent()
  @IsInt()
  @Min(6)
  @Max(128)
  password_min_length?: number;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IfSet()
  @IsString()
  @MaxLength(255)
  smtp_host?: string | null;

  @ApiPropertyOptional({ nullable: true, type: Number, minimum: 1, maximum: 65535 })
  @IfSet()
  @IsInt()
  @Min(1)
  @Max(65535)
  smtp_port?: number | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IfSet()
  @IsString()
  @MaxLength(255)
  smtp_user?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'Write-only: never returned' })
  @IfSet()
  @IsString()
  @MaxLength(1024)
  smtp_pass?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IfSet()
  @IsEmail()
  smtp_admin_email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IfSet()
  @IsString()
  @MaxLength(255)
  smtp_sender_name?: string | null;
}

export class AuthConfigResponse {
  @ApiProperty() site_url!: string;
  @ApiProperty() uri_allow_list!: string;
  @ApiProperty() mailer_autoconfirm!: boolean;
  @ApiProperty() jwt_exp!: number;
  @ApiProperty() password_min_length!: number;
  @ApiProperty({ nullable: true, type: String }) smtp_host!: string | null;
  @ApiProperty({ nullable: true, type: Number }) smtp_port!: number | null;
  @ApiProperty({ nullable: true, type: String }) smtp_user!: string | null;
  @ApiProperty({ nullable: true, type: String }) smtp_admin_email!: string | null;
  @ApiProperty({ nullable: true, type: String }) smtp_sender_name!: string | null;
}
