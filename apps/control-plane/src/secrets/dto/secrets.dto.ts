import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export class SecretDto {
  @ApiProperty({
    example: 'STRIPE_KEY',
    description: 'Letters, digits and _, not starting with a digit.',
  })
  @IsString()
  @MaxLength(256)
  @Matches(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: 'name must be letters, digits and _, not starting with a digit',
  })
  name!: string;

  @ApiProperty({ maxLength: 24576 })
  @IsString()
  @MaxLength(24576)
  value!: string;
}

export class SecretDigestResponse {
  @ApiProperty() name!: string;
  @ApiProperty({
    description: 'SHA-256 hex digest of the value; the value itself is never returned.',
  })
  value!: string;
}
