import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { createFunctionRuntime } from '@baseplate/functions-runtime';
import { ProjectContextModule } from '../project-context';
import { FunctionsController } from './functions.controller';
import { FUNCTION_RUNTIME, FunctionsService } from './functions.service';
import { InvocationRecorder } from './invocation-recorder';

/** `/functions/v1`: edge function invocations (issue 6). */
@Module({
  imports: [ProjectContextModule],
  controllers: [FunctionsController],
  providers: [
    InvocationRecorder,
    FunctionsService,
    {
      provide: FUNCTION_RUNTIME,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => createFunctionRuntime(config),
    },
  ],
})
export class FunctionsModule {}
