import { Module } from '@nestjs/common';
import { ProjectContextModule } from '../project-context';
import { AuthController } from './auth.controller';

/** GoTrue-compatible user auth per project (issue 4, in progress). */
@Module({ imports: [ProjectContextModule], controllers: [AuthController] })
export class AuthModule {}
