import { Pool } from 'pg';
import { SecretBox } from '@baseplate/security';
import { ProjectStatus } from './entities/project.entity';
import { REST_CONFIG_DEFAULTS } from './entities/project-rest-config.entity';

/** A project's REST API settings (project_rest_configs), parsed. */
export interface RestSettings {
  /** Schemas the REST API exposes; the first is the default one. */
  schemas: string[];
  /** Schemas appended to the search_path of every REST request. */
  extraSearchPath: string[];
  /** Most rows one REST response returns. */
  maxRows: number;
}

/** A project's user-auth settings (project_auth_configs) the data plane applies. */
export interface AuthSettings {
  siteUrl: string;
  /** Redirect URLs allowed besides siteUrl (Supabase's `uri_allow_list`). */
  uriAllowList: string[];
  /** Sign-ups are confirmed at once (no confirmation email). */
  mailerAutoconfirm: boolean;
  /** Access token lifetime, seconds. */
  jwtExp: number;
  passwordMinLength: number;
}

/** Column defaults of project_auth_configs, for a project whose row is missing. */
const AUTH_DEFAULTS: AuthSettings = {
  siteUrl: 'http://localhost:3000',
  uriAllowList: [],
  mailerAutoconfirm: false,
  jwtExp: 3600,
  passwordMinLength: 6,
};

/** A project's function limits (project_function_configs). */
export interface FunctionSettings {
  timeoutMs: number;
  memoryMb: number;
  maxPayloadBytes: number;
  maxConcurrency: number;
}

/** Column defaults of project_function_configs, for a project whose row is missing. */
export const FUNCTION_DEFAULTS: FunctionSettings = {
  timeoutMs: 10_000,
  memoryMb: 128,
  maxPayloadBytes: 6 * 1024 * 1024,
  maxConcurrency: 10,
};

/** What the data plane needs to serve a project. Holds the decrypted JWT secret: never log it. */
export interface ProjectContext {
  ref: string;
  status: ProjectStatus;
  dbName: string;
  cluster: string;
  jwtSecret: string | null;
  keysVersion: number;
  rest: RestSettings;
  auth: AuthSettings;
  functions: {
    limits: FunctionSettings;
    /** The active version of each deployed function, by slug (the code is read when needed). */
    deployed: Record<string, { id: string; version: number }>;
  };
}

/** `'public, api,'` → `['public', 'api']`. */
const splitList = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * The small read-only view of the control database the data plane uses, so that it
 * never depends on the control plane's code or on TypeORM.
 */
export class ProjectContextReader {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async read(ref: string): Promise<ProjectContext | null> {
    // One query: the context is cached as a whole, so its parts must come from one snapshot.
    const { rows } = await this.pool.query<{
      ref: string;
      status: ProjectStatus;
      db_name: string;
      cluster: string;
      jwt_secret_enc: string | null;
      keys_version: number;
      db_schema: string | null;
      db_extra_search_path: string | null;
      max_rows: number | null;
      site_url: string | null;
      uri_allow_list: string | null;
      mailer_autoconfirm: boolean | null;
      jwt_exp: number | null;
      password_min_length: number | null;
      timeout_ms: number | null;
      memory_mb: number | null;
      max_payload_bytes: number | null;
      max_concurrency: number | null;
      functions: Record<string, { id: string; version: number }> | null;
    }>(
      `SELECT p.ref, p.status, p.db_name, p.cluster, p.jwt_secret_enc, p.keys_version,
              r.db_schema, r.db_extra_search_path, r.max_rows,
              a.site_url, a.uri_allow_list, a.mailer_autoconfirm, a.jwt_exp, a.password_min_length,
              c.timeout_ms, c.memory_mb, c.max_payload_bytes, c.max_concurrency,
              (SELECT json_object_agg(fn.slug, json_build_object('id', fn.id, 'version', fn.version))
                 FROM functions fn WHERE fn.project_ref = p.ref) AS functions
         FROM projects p
         LEFT JOIN project_rest_configs r ON r.project_ref = p.ref
         LEFT JOIN project_auth_configs a ON a.project_ref = p.ref
         LEFT JOIN project_function_configs c ON c.project_ref = p.ref
        WHERE p.ref = $1`,
      [ref],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      ref: row.ref,
      status: row.status,
      dbName: row.db_name,
      cluster: row.cluster,
      jwtSecret: row.jwt_secret_enc ? this.box.open(row.jwt_secret_enc) : null,
      keysVersion: row.keys_version,
      // No row (never PATCHed): the column defaults.
      rest: {
        schemas: splitList(row.db_schema ?? REST_CONFIG_DEFAULTS.dbSchema),
        extraSearchPath: splitList(
          row.db_extra_search_path ?? REST_CONFIG_DEFAULTS.dbExtraSearchPath,
        ),
        maxRows: row.max_rows ?? REST_CONFIG_DEFAULTS.maxRows,
      },
      auth: {
        siteUrl: row.site_url ?? AUTH_DEFAULTS.siteUrl,
        uriAllowList:
          row.uri_allow_list === null ? AUTH_DEFAULTS.uriAllowList : splitList(row.uri_allow_list),
        mailerAutoconfirm: row.mailer_autoconfirm ?? AUTH_DEFAULTS.mailerAutoconfirm,
        jwtExp: row.jwt_exp ?? AUTH_DEFAULTS.jwtExp,
        passwordMinLength: row.password_min_length ?? AUTH_DEFAULTS.passwordMinLength,
      },
      functions: {
        limits: {
          timeoutMs: row.timeout_ms ?? FUNCTION_DEFAULTS.timeoutMs,
          memoryMb: row.memory_mb ?? FUNCTION_DEFAULTS.memoryMb,
          maxPayloadBytes: row.max_payload_bytes ?? FUNCTION_DEFAULTS.maxPayloadBytes,
          maxConcurrency: row.max_concurrency ?? FUNCTION_DEFAULTS.maxConcurrency,
        },
        deployed: row.functions ?? {},
      },
    };
  }
}
