/**
 * Every setting Baseplate reads. One table drives parsing, validation, `.env.example`
 * and log masking, so a new variable is added in exactly one place.
 */
export type Parser<T> = (raw: string) => T;

export interface VarSpec<T> {
  /** Environment variable name. */
  env: string;
  description: string;
  /** Sensitive values are never logged and are masked in `describeConfig`. */
  sensitive?: boolean;
  /** Raw default, parsed like a provided value. Absent means required. */
  default?: string;
  /** Optional: absent leaves the value undefined instead of failing. */
  optional?: boolean;
  parse: Parser<T>;
}

class ParseError extends Error {}

export const fail = (what: string): never => {
  throw new ParseError(what);
};
export const isParseError = (e: unknown): e is Error => e instanceof ParseError;

export const str: Parser<string> = (raw) => raw;

export const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw)) fail(`must be an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) fail(`must be between ${min} and ${max}, got ${n}`);
    return n;
  };

export const bool: Parser<boolean> = (raw) => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  return fail(`must be true or false, got "${raw}"`);
};

export const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw) =>
    (values as string[]).includes(raw)
      ? (raw as T)
      : fail(`must be one of ${values.join(', ')}, got "${raw}"`);

export const url =
  (...protocols: string[]): Parser<string> =>
  (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      return fail('must be a URL');
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      fail(`must use ${protocols.map((p) => `${p}://`).join(' or ')}`);
    }
    return raw.replace(/\/+$/, '');
  };

/** A 32-byte key given as 64 hex characters or base64 (44 characters with padding). */
export const key32: Parser<Buffer> = (raw) => {
  const value = raw.trim();
  const buf = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : fail('must be 32 bytes as 64 hex characters or base64 (generate: openssl rand -hex 32)');
  if (buf.length !== 32) fail('must decode to exactly 32 bytes');
  return buf;
};

/** PostgreSQL identifier we create ourselves (database names), kept to a safe alphabet. */
export const pgName: Parser<string> = (raw) =>
  /^[a-z_][a-z0-9_]{0,62}$/.test(raw)
    ? raw
    : fail('must be lowercase letters, digits and underscores (max 63), starting with a letter');

const spec = <T>(s: VarSpec<T>): VarSpec<T> => s;

export const ENV_SCHEMA = {
  nodeEnv: spec({
    env: 'NODE_ENV',
    description: 'Runtime mode: development, production or test.',
    default: 'development',
    parse: oneOf('development', 'production', 'test'),
  }),
  logLevel: spec({
    env: 'LOG_LEVEL',
    description: 'pino log level.',
    default: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  }),
  databaseUrl: spec({
    env: 'DATABASE_URL',
    description:
      'PostgreSQL URL of the control database, as a role that may create databases and roles. `npm start` starts an embedded PostgreSQL when unset.',
    sensitive: true,
    parse: url('postgres', 'postgresql'),
  }),
  redisUrl: spec({
    env: 'REDIS_URL',
    description: 'Redis URL for job queues and cache invalidation.',
    sensitive: true,
    default: 'redis://127.0.0.1:6379',
    parse: url('redis', 'rediss'),
  }),
  masterKey: spec({
    env: 'MASTER_KEY',
    description:
      'Encrypts project JWT secrets and passwords at rest; 32 bytes as hex or base64. `npm start` generates one under .data/ when unset.',
    sensitive: true,
    parse: key32,
  }),
  authenticatorPassword: spec({
    env: 'AUTHENTICATOR_PASSWORD',
    description:
      'Password of the `authenticator` database role the data plane connects as. Derived from MASTER_KEY when unset.',
    sensitive: true,
    optional: true,
    parse: str,
  }),
  host: spec({
    env: 'HOST',
    description: 'Interface the HTTP servers listen on.',
    default: '0.0.0.0',
    parse: str,
  }),
  controlPlanePort: spec({
    env: 'CONTROL_PLANE_PORT',
    description: 'Port of the control plane (management API, /docs).',
    default: '3000',
    parse: int(0, 65535),
  }),
  dataPlanePort: spec({
    env: 'DATA_PLANE_PORT',
    description: 'Port of the data plane ({base_url}).',
    default: '8000',
    parse: int(0, 65535),
  }),
  publicUrl: spec({
    env: 'PUBLIC_URL',
    description:
      'Public base URL of the data plane; project endpoints are <PUBLIC_URL>/projects/<ref>.',
    default: 'http://localhost:8000',
    parse: url('http', 'https'),
  }),
  controlPlaneUrl: spec({
    env: 'CONTROL_PLANE_URL',
    description: 'Public base URL of the control plane (printed at start, used in docs).',
    default: 'http://localhost:3000',
    parse: url('http', 'https'),
  }),
  projectTemplateDb: spec({
    env: 'PROJECT_TEMPLATE_DB',
    description: 'Name of the template database kept at the newest project migration.',
    default: 'baseplate_project_template',
    parse: pgName,
  }),
  storageDir: spec({
    env: 'STORAGE_DIR',
    description: 'Directory for stored files (fs driver), one folder per project.',
    default: '.data/storage',
    parse: str,
  }),
  storageDriver: spec({
    env: 'STORAGE_DRIVER',
    description: 'Where stored file bytes live: fs (under STORAGE_DIR) or s3 (STORAGE_S3_*).',
    default: 'fs',
    parse: oneOf('fs', 's3'),
  }),
  storageMaxUploadBytes: spec({
    env: 'STORAGE_MAX_UPLOAD_BYTES',
    description:
      'Largest file one upload may carry, on top of each bucket file_size_limit; larger: 413.',
    default: String(50 * 1024 * 1024),
    parse: int(1),
  }),
  storageS3Bucket: spec({
    env: 'STORAGE_S3_BUCKET',
    description: 'S3 bucket holding every project file (s3 driver); keys are <ref>/<bucket>/...',
    optional: true,
    parse: str,
  }),
  storageS3Endpoint: spec({
    env: 'STORAGE_S3_ENDPOINT',
    description: 'S3-compatible endpoint URL (MinIO, R2, ...); unset: AWS for STORAGE_S3_REGION.',
    optional: true,
    parse: url('http', 'https'),
  }),
  storageS3Region: spec({
    env: 'STORAGE_S3_REGION',
    description: 'S3 region.',
    default: 'us-east-1',
    parse: str,
  }),
  storageS3AccessKeyId: spec({
    env: 'STORAGE_S3_ACCESS_KEY_ID',
    description: 'S3 access key id; unset: the AWS SDK default credential chain.',
    optional: true,
    parse: str,
  }),
  storageS3SecretAccessKey: spec({
    env: 'STORAGE_S3_SECRET_ACCESS_KEY',
    description: 'S3 secret access key.',
    sensitive: true,
    optional: true,
    parse: str,
  }),
  storageS3ForcePathStyle: spec({
    env: 'STORAGE_S3_FORCE_PATH_STYLE',
    description: 'Path-style S3 URLs (needed by most S3-compatible servers).',
    default: 'true',
    parse: bool,
  }),
  functionsDir: spec({
    env: 'FUNCTIONS_DIR',
    description: 'Directory for deployed function bundles, one folder per project.',
    default: '.data/functions',
    parse: str,
  }),
  functionsRuntime: spec({
    env: 'FUNCTIONS_RUNTIME',
    description:
      'Edge function driver: process (warm child Node processes, the embedded default) or docker (one container per function version; needs a Docker engine).',
    default: 'process',
    parse: oneOf('process', 'docker'),
  }),
  functionsUid: spec({
    env: 'FUNCTIONS_UID',
    description:
      'Unprivileged uid (and gid) function processes run as when the platform runs as root.',
    default: '65534',
    parse: int(1, 2 ** 31 - 1),
  }),
  functionsMaxWorkers: spec({
    env: 'FUNCTIONS_MAX_WORKERS',
    description: 'Warm processes one function may grow to under load (process driver).',
    default: '2',
    parse: int(1, 64),
  }),
  functionsIdleMs: spec({
    env: 'FUNCTIONS_IDLE_MS',
    description: 'A function worker idle this long is stopped; the next call starts one again.',
    default: '300000',
    parse: int(1000),
  }),
  functionsRecycleAfter: spec({
    env: 'FUNCTIONS_RECYCLE_AFTER',
    description: 'A function worker is replaced after this many invocations.',
    default: '10000',
    parse: int(1),
  }),
  functionsDockerImage: spec({
    env: 'FUNCTIONS_DOCKER_IMAGE',
    description: 'Image of function containers (docker driver): Node 20 with nothing else needed.',
    default: 'node:20-slim',
    parse: str,
  }),
  functionsDockerNetwork: spec({
    env: 'FUNCTIONS_DOCKER_NETWORK',
    description:
      'Network of function containers (docker driver): a dedicated bridge in production; host or none in tests.',
    default: 'bridge',
    parse: str,
  }),
  queuePrefix: spec({
    env: 'QUEUE_PREFIX',
    description: 'Prefix of every Redis key and channel Baseplate uses (queues, pub/sub).',
    default: 'baseplate',
    parse: (raw) =>
      /^[a-zA-Z0-9_-]{1,40}$/.test(raw) ? raw : fail('must be 1-40 letters, digits, _ or -'),
  }),
  platformTokenTtlS: spec({
    env: 'PLATFORM_TOKEN_TTL_S',
    description: 'Lifetime in seconds of control-plane login tokens.',
    default: '86400',
    parse: int(60, 30 * 86400),
  }),
  sqlStatementTimeoutMs: spec({
    env: 'SQL_STATEMENT_TIMEOUT_MS',
    description: 'statement_timeout for POST /v1/projects/{ref}/database/query.',
    default: '15000',
    parse: int(100, 600000),
  }),
  sqlResultMaxBytes: spec({
    env: 'SQL_RESULT_MAX_BYTES',
    description:
      'Largest result (as JSON) that POST /v1/projects/{ref}/database/query returns; a larger one is stopped and refused.',
    default: String(20 * 1024 * 1024),
    parse: int(1024),
  }),
  projectPoolMax: spec({
    env: 'PROJECT_POOL_MAX',
    description: 'Connections per project pool in the data plane.',
    default: '5',
    parse: int(1, 100),
  }),
  projectPoolsMax: spec({
    env: 'PROJECT_POOLS_MAX',
    description:
      'Project pools kept open at once per data plane; the least recently used closes first.',
    default: '200',
    parse: int(1, 100000),
  }),
  projectPoolIdleMs: spec({
    env: 'PROJECT_POOL_IDLE_MS',
    description: 'A project pool unused this long is closed.',
    default: '60000',
    parse: int(1000),
  }),
  restStatementTimeoutMs: spec({
    env: 'REST_STATEMENT_TIMEOUT_MS',
    description:
      'statement_timeout of every REST API transaction (a runaway query ends with a 500 instead of holding a connection).',
    default: '8000',
    parse: int(100),
  }),
  authRateLimitPerMinute: spec({
    env: 'AUTH_RATE_LIMIT_PER_MINUTE',
    description:
      'Sign-ups, sign-ins, refreshes, verifications and email requests a client IP may make per minute, project and kind (sign-ins also per email); over it: 429.',
    default: '60',
    parse: int(1, 1_000_000),
  }),
  authEmailIntervalS: spec({
    env: 'AUTH_EMAIL_INTERVAL_S',
    description:
      'Seconds before an address may be sent another auth email (sign-up, recovery, magic link, resend); sooner: 429 over_email_send_rate_limit. 0 turns the check off.',
    default: '60',
    parse: int(0, 86400),
  }),
  smtpUrl: spec({
    env: 'SMTP_URL',
    description:
      'Platform SMTP server for auth emails of projects without their own SMTP settings: smtp://user:pass@host:port (STARTTLS when offered) or smtps://... (TLS). Unset: such emails are captured, readable through GET /v1/projects/{ref}/auth/emails.',
    sensitive: true,
    optional: true,
    parse: (raw) => {
      const value = url('smtp', 'smtps')(raw);
      return new URL(value).hostname ? value : fail('must name a host: smtp://user:pass@host:port');
    },
  }),
  smtpFrom: spec({
    env: 'SMTP_FROM',
    description:
      'Sender of auth emails sent through SMTP_URL, and of project SMTP mail without smtp_admin_email.',
    default: 'Baseplate <noreply@localhost>',
    parse: (raw) =>
      // A line break would let the value add mail headers of its own.
      /^[^\r\n]*@[^\r\n]*$/.test(raw) ? raw : fail('must be one address, e.g. Name <a@b.c>'),
  }),
  capturedEmailsKeep: spec({
    env: 'CAPTURED_EMAILS_KEEP',
    description: 'Captured auth emails kept per project; older ones are deleted.',
    default: '200',
    parse: int(1, 100000),
  }),
  projectContextTtlMs: spec({
    env: 'PROJECT_CONTEXT_TTL_MS',
    description:
      'Upper bound on how long the data plane caches a project context; pub/sub invalidation usually clears it first.',
    default: '60000',
    parse: int(0),
  }),
  jobAttempts: spec({
    env: 'JOB_ATTEMPTS',
    description: 'Attempts per job before it is marked failed.',
    default: '5',
    parse: int(1, 100),
  }),
  jobBackoffMs: spec({
    env: 'JOB_BACKOFF_MS',
    description: 'First retry delay of a failed job; doubles on each attempt.',
    default: '1000',
    parse: int(0),
  }),
  jobLockMs: spec({
    env: 'JOB_LOCK_MS',
    description:
      'Job lock duration; a job whose worker died is retried after this long (stalled-job detection).',
    default: '30000',
    parse: int(1000),
  }),
  provisionStepDelayMs: spec({
    env: 'PROVISION_STEP_DELAY_MS',
    description:
      'Pause between provisioning steps. 0 in normal use; the resilience test uses it to kill a worker mid-job.',
    default: '0',
    parse: int(0, 60000),
  }),
} satisfies Record<string, VarSpec<unknown>>;

export type EnvSchema = typeof ENV_SCHEMA;

type ValueOf<S> = S extends VarSpec<infer T> ? T : never;
type IsOptional<S> = S extends { optional: true } ? true : false;

export type AppConfig = Readonly<
  {
    [K in keyof EnvSchema as IsOptional<EnvSchema[K]> extends true ? never : K]: ValueOf<
      EnvSchema[K]
    >;
  } & {
    [K in keyof EnvSchema as IsOptional<EnvSchema[K]> extends true ? K : never]?: ValueOf<
      EnvSchema[K]
    >;
  }
>;
