import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { PROJECT_STATUSES, ProjectStatus } from '@baseplate/control-db';

export class CreateProjectDto {
  @ApiProperty({ example: 'my-app', maxLength: 64 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  @Matches(/^[^\p{Cc}]+$/u, { message: 'name must not contain control characters' })
  name!: string;
}

export class ProjectResponse {
  @ApiProperty({
    description: 'Project ref: 20 lowercase letters and digits.',
    example: 'abcdefghij0123456789',
  })
  id!: string;

  @ApiProperty() name!: string;

  @ApiProperty({ enum: PROJECT_STATUSES }) status!: ProjectStatus;

  @ApiProperty({ description: 'ISO 8601' }) created_at!: string;

  @ApiProperty({ description: '<PUBLIC_URL>/projects/<ref>: the URL to give createClient()' })
  endpoint!: string;

  @ApiPropertyOptional({ description: 'Provisioning progress, 0-100.' }) progress?: number;

  @ApiPropertyOptional({
    description: 'Why provisioning failed (INIT_FAILED).',
    nullable: true,
    type: String,
  })
  status_reason?: string | null;
}
