import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '@baseplate/config';

/**
 * Credentials that must never reach a log line: request headers carrying keys, tokens
 * or cookies, and any body field that could hold a password or secret.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.apikey',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.smtp_pass',
  '*.value',
  '*.token',
  '*.access_token',
  '*.refresh_token',
];

export interface LoggingOptions {
  /**
   * The URL to log for a request. The data plane rewrites `/projects/<ref>/...` before
   * routing; it passes the URL as sent so log lines keep the project.
   */
  requestUrl?: (req: IncomingMessage) => string;
}

@Module({})
export class LoggingModule {
  /** pino (through nestjs-pino) with redaction; `service` names the app in every line. */
  static forRoot(service: string, options: LoggingOptions = {}): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            pinoHttp: {
              level: config.logLevel,
              base: { service },
              redact: { paths: REDACT_PATHS, censor: '[redacted]' },
              autoLogging: config.nodeEnv !== 'test',
              quietReqLogger: true,
              ...(options.requestUrl
                ? { customProps: (req: IncomingMessage) => ({ url: options.requestUrl!(req) }) }
                : {}),
            },
          }),
        }),
      ],
    };
  }
}
