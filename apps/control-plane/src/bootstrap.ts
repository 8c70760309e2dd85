import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@baseplate/config';
import { PlatformExceptionFilter } from '@baseplate/errors';
import { HttpAdapterHost } from '@nestjs/core';
import { validationPipe } from './common/validation';
import { ControlPlaneModule } from './control-plane.module';

/** Builds and starts the control plane on config.host:config.controlPlanePort (0 = any free port). */
export async function createControlPlaneApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ControlPlaneModule.forRoot(config), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // The SQL endpoint takes whole scripts; everything else is small.
  app.useBodyParser('json', { limit: '2mb' });
  app.disable('x-powered-by');
  app.useGlobalPipes(validationPipe());
  app.useGlobalFilters(new PlatformExceptionFilter(app.get(HttpAdapterHost)));
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Baseplate management API')
      .setDescription(
        'Platform accounts and projects. Shaped like the Supabase Management API where one exists.',
      )
      .setVersion('1')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        description: 'Login token (POST /v1/login) or personal access token',
      })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });

  await app.listen(config.controlPlanePort, config.host);
  return app;
}
