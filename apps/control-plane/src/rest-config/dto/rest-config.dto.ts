import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, registerDecorator, ValidateIf } from 'class-validator';
import { MAX_SCHEMAS, schemaListProblem, SchemaListRule } from '../schema-list';

export const MAX_ROWS_LIMIT = 1_000_000;

/**
 * Every value sent is validated, so `null` is refused: these settings cannot be cleared, and
 * @IsOptional() would let `null` through to a NOT NULL column (a 500).
 */
const IfPresent = () => ValidateIf((_o, v) => v !== undefined);

/** A comma-separated list of schema names; the message says what is wrong with it. */
function IsSchemaList(rule: SchemaListRule): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSchemaList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value, args) => schemaListProblem(args!.property, value, rule) === null,
        defaultMessage: (args) => schemaListProblem(args!.property, args!.value, rule) ?? '',
      },
    });
}

/** PATCH body: every field optional, none nullable. */
export class UpdateRestConfigDto {
  @ApiPropertyOptional({
    description:
      'Comma-separated schemas the REST API exposes (1 to 20); the first is the default. ' +
      'auth, storage, _platform, pg_catalog, information_schema and pg_* are refused.',
    example: 'public, api',
  })
  @IfPresent()
  @IsSchemaList({ min: 1, max: MAX_SCHEMAS, refuseReserved: true })
  db_schema?: string;

  @ApiPropertyOptional({
    description: 'Comma-separated schemas added to the search_path of REST requests (0 to 20)',
    example: 'public, extensions',
  })
  @IfPresent()
  @IsSchemaList({ min: 0, max: MAX_SCHEMAS, refuseReserved: false })
  db_extra_search_path?: string;

  @ApiPropertyOptional({
    description: 'Most rows one REST response returns',
    minimum: 1,
    maximum: MAX_ROWS_LIMIT,
  })
  @IfPresent()
  @IsInt()
  @Min(1)
  @Max(MAX_ROWS_LIMIT)
  max_rows?: number;
}

export class RestConfigResponse {
  @ApiProperty({ example: 'public' }) db_schema!: string;
  @ApiProperty({ example: 'public' }) db_extra_search_path!: string;
  @ApiProperty({ example: 1000 }) max_rows!: number;
}
