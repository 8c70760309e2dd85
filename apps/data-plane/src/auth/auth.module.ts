import { Module } from '@nestjs/common';
import { ProjectContextModule } from '../project-context';
import { AuthAdminController } from './admin.controller';
import { AuthController } from './auth.controller';
import { AuthRateLimiter } from './rate-limiter';

/** GoTrue-compatible user auth per project (issue 4, in progress). */
@Module({
  imports: [ProjectContextModule],
  controllers: [AuthAdminController, AuthController],
  providers: [AuthRateLimiter],
})
export class AuthModule {}
