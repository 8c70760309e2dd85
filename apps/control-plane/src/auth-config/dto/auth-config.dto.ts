import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** PATCH body: every field optional; `null` clears an SMTP field. */
export class UpdateAuthConfigDto {
  @ApiPropertyOptional({ example: 'https://app.example.com' })
  @IsOptional()
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  site_url?: string;

  @ApiPropertyOptional({
    description: 'Comma-separated redirect URLs allowed besides site_url',
    example: 'http://localhost:5173/**',
  })
  @IsOptional()
  @IsString()
  @MaxLength(8192)
  uri_allow_list?: string;

  @ApiPropertyOptional({
    description: 'true: sign-up answers with a session, no email confirmation',
  })
  @IsOptional()
  @IsBoolean()
  mailer_autoconfirm?: boolean;

  @ApiPropertyOptional({
    description: 'Access token lifetime in seconds',
    minimum: 30,
    maximum: 604800,
  })
  @IsOptional()
  @IsInt()
  @Min(30)
  @Max(604800)
  jwt_exp?: number;

  @ApiPropertyOptional({ minimum: 6, maximum: 128 })
  @IsOptional()
  @IsInt()
  @Min(6)
  @Max(128)
  password_min_length?: number;

  @ApiPropertyOptional({ nullable: true, type: String })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  smtp_host?: string | null;

  @ApiPropertyOptional({ nullable: true, type: Number, minimum: 1, maximum: 65535 })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsInt()
  @Min(1)
  @Max(65535)
  smtp_port?: number | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(255)
  smtp_user?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'Write-only: never returned' })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsString()
  @MaxLength(1024)
  smtp_pass?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @IsEmail()
  smtp_admin_email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
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
