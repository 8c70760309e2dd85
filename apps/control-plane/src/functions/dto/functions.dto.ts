import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

/** Lowercase letters, digits, `-` and `_`; starts with a letter or digit; at most 63. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Largest source accepted (the worker checks it again). */
export const MAX_BODY_CHARS = 1024 * 1024;

const IfPresent = () => ValidateIf((_o, v) => v !== undefined);

export class CreateFunctionDto {
  @ApiProperty({ example: 'hello-world', description: 'a-z, 0-9, - and _, at most 63' })
  @IsString()
  @Matches(SLUG_PATTERN, {
    message:
      'slug must be lowercase letters, digits, - or _ (1-63), starting with a letter or digit',
  })
  slug!: string;

  @ApiProperty({ example: 'Hello world' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({
    description: 'Source of one module (JavaScript or TypeScript) exporting the handler',
    example: 'export default async function (payload) { return { hello: payload.name } }',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_BODY_CHARS)
  body!: string;
}

export class UpdateFunctionDto {
  @ApiPropertyOptional()
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: 'New source: deployed as the next version' })
  @IfPresent()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_BODY_CHARS)
  body?: string;
}

export class FunctionResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 1 }) version!: number;
  @ApiProperty({ example: 'ACTIVE' }) status!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

export class InvocationResponse {
  @ApiProperty() id!: number;
  @ApiProperty() version!: number;
  @ApiProperty({
    example: 'ok',
    description: 'ok, error, timeout, crashed, bad_result, busy, too_large, bad_request',
  })
  status!: string;
  @ApiProperty({ example: 200 }) http_status!: number;
  @ApiProperty() duration_ms!: number;
  @ApiProperty({ description: 'Captured console lines: {level, message, at}' }) logs!: unknown[];
  @ApiProperty() created_at!: string;
}

export class FunctionConfigResponse {
  @ApiProperty({ example: 10000 }) timeout_ms!: number;
  @ApiProperty({ example: 128 }) memory_mb!: number;
  @ApiProperty({ example: 6291456 }) max_payload_bytes!: number;
  @ApiProperty({ example: 10 }) max_concurrency!: number;
}

export class UpdateFunctionConfigDto {
  @ApiPropertyOptional({ description: 'Wall-clock limit per invocation (100 ms to 5 min)' })
  @IfPresent()
  @IsInt()
  @Min(100)
  @Max(300_000)
  timeout_ms?: number;

  @ApiPropertyOptional({ description: 'Memory of one function process (32 to 2048 MB)' })
  @IfPresent()
  @IsInt()
  @Min(32)
  @Max(2048)
  memory_mb?: number;

  @ApiPropertyOptional({ description: 'Largest payload and result as JSON (1 KiB to 16 MiB)' })
  @IfPresent()
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  max_payload_bytes?: number;

  @ApiPropertyOptional({ description: 'Invocations of one function in flight at once (1 to 1000)' })
  @IfPresent()
  @IsInt()
  @Min(1)
  @Max(1000)
  max_concurrency?: number;
}
