import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@baseplate/config';
import { WorkerModule } from './worker.module';

export interface RunningWorker {
  /** Stops taking jobs, lets running ones finish, closes every connection. Idempotent. */
  close(): Promise<void>;
}

/** Boots the worker in this process (main.ts and the integration tests). */
export async function startWorker(config: AppConfig): Promise<RunningWorker> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    bufferLogs: true,
    // Nest would abort the process; the caller decides instead (main.ts prints one line, exits 1).
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  logger.log('worker started', 'Worker');
  let closing: Promise<void> | undefined;
  return {
    close: () => (closing ??= app.close()),
  };
}
