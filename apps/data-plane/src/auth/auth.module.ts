import { Module } from '@nestjs/common';
import { ProjectContextModule } from '../project-context';
import { AuthAdminController } from './admin.controller';
import { AuthController } from './auth.controller';
import { AuthEmailController } from './email.controller';
import { AuthMailer } from './mailer';
import { AuthRateLimiter } from './rate-limiter';

/** GoTrue-compatible user auth per project (issue 4). */
@Module({
  imports: [ProjectContextModule],
  controllers: [AuthAdminController, AuthEmailController, AuthController],
  providers: [AuthRateLimiter, AuthMailer],
})
export class AuthModule {}
