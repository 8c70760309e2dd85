import { ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@baseplate/config';
import { DataPlaneModule } from './data-plane.module';
import { corsOptions } from './http/cors';
import { registerJsonBodyParser } from './http/json-body';
import { registerRawBodyParser } from './http/raw-body';
import { ProjectAuthService } from './project-context/project-auth.service';
import { rewriteRawUrl } from './project-context/project-path';
import { installProjectResolution } from './project-context/project-resolution.hook';
import { installUploadStreaming } from './storage/upload-body';

/** Largest buffered request body (JSON, text); function payload limits stay under it. */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface DataPlaneAppOptions {
  /** Extra modules mounted beside the features (tests mount probe routes this way). */
  imports?: ModuleMetadata['imports'];
}

/**
 * Builds and starts the data plane on config.host:config.dataPlanePort (0 = any free
 * port; read it back with `app.getUrl()`).
 */
export async function createDataPlaneApp(
  config: AppConfig,
  options: DataPlaneAppOptions = {},
): Promise<NestFastifyApplication> {
  // `/projects/<ref>/...` is stripped before routing, so features register each route once.
  // Bodies up to 16 MiB (function payloads are capped per project below that; uploads stream
  // and are not counted here).
  const adapter = new FastifyAdapter({ rewriteUrl: rewriteRawUrl, bodyLimit: BODY_LIMIT_BYTES });
  const app = await NestFactory.create<NestFastifyApplication>(
    DataPlaneModule.forRoot(config, options.imports),
    adapter,
    // Our own JSON parser replaces Nest's (see registerJsonBodyParser).
    { bufferLogs: true, bodyParser: false },
  );
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  // Nest runs the CORS hook first of all onRequest hooks, so it precedes resolution.
  app.enableCors(corsOptions);
  const fastify = app.getHttpAdapter().getInstance();
  registerJsonBodyParser(fastify);
  registerRawBodyParser(fastify);
  installUploadStreaming(fastify);
  installProjectResolution(fastify, app.get(ProjectAuthService));
  await app.listen({ port: config.dataPlanePort, host: config.host });
  return app;
}
