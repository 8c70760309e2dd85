import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class DatabaseQueryDto {
  @ApiProperty({
    example: 'create table todos (id bigint generated always as identity primary key, task text)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1_000_000)
  query!: string;
}
