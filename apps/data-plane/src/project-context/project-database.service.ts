import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import { APP_CONFIG, AppConfig, authenticatorPassword } from '@baseplate/config';
import { ProjectContext } from '@baseplate/control-db';
import {
  AUTH_ADMIN_ROLE,
  AUTHENTICATOR_ROLE,
  connectionUrl,
  PipelinedResult,
  pipelinedRead,
  pipelinedStatement,
  PipelinedStatementError,
  PipelineOutcome,
  pipelinedTransaction,
  PoolManager,
  RequestContext,
  RequestSettings,
  withRequestTransaction,
} from '@baseplate/database';
import { Errors } from '@baseplate/errors';
import { ProjectRequestContext } from './project-request-context';

/** What a feature says about its request; role and claims come from the verified caller. */
export type ProjectRequestOptions = Omit<RequestSettings, 'role' | 'claims'>;

const DEFAULT_CLUSTER = 'default';
// Waiting this long for a connection (pool exhausted, server unreachable) fails the request
// instead of holding it open forever.
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The project databases, as `authenticator`: one lazily opened pool per project, closed
 * when idle or when the project is invalidated. `withRequest` is the helper the REST
 * engine, auth and storage run their SQL through.
 */
@Injectable()
export class ProjectDatabaseService implements OnModuleDestroy {
  private readonly pools: PoolManager;
  private readonly password: string;
  /**
   * The schema version each pool's last auth statement read: auth statements are prepared
   * under it, as the REST engine prepares under its schema cache's version, so the two
   * share a connection's prepared statements instead of closing each other's.
   */
  private readonly schemaVersions = new WeakMap<Pool, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.pools = new PoolManager({
      max: config.projectPoolMax,
      maxPools: config.projectPoolsMax,
      idleMs: config.projectPoolIdleMs,
    });
    this.password = authenticatorPassword(config);
  }

  /** Runs `fn` in one transaction as the caller's role, with its claims and request settings. */
  withRequest<T>(
    ctx: ProjectRequestContext,
    request: ProjectRequestOptions,
    fn: (tx: RequestContext) => Promise<T>,
  ): Promise<T> {
    return withRequestTransaction(
      this.pool(ctx.context),
      { ...request, role: ctx.role, claims: ctx.claims },
      fn,
    );
  }

  /**
   * A transaction of the auth service itself: as `auth_admin`, the one role that writes the
   * `auth` schema. Only auth code calls this; API requests always run as the caller's role.
   */
  withAuthAdmin<T>(
    ctx: ProjectRequestContext,
    request: { method: string; path: string },
    fn: (tx: RequestContext) => Promise<T>,
  ): Promise<T> {
    return withRequestTransaction(
      this.pool(ctx.context),
      { ...request, role: AUTH_ADMIN_ROLE, claims: ctx.claims, searchPath: ['auth'] },
      fn,
    );
  }

  /**
   * One statement of the auth service as `auth_admin` in ONE round trip: the settings
   * withAuthAdmin sends and the statement, pipelined as one transaction that is committed
   * before this resolves (see pipelinedStatement). The statement is prepared on the
   * connection; one that PostgreSQL refuses after a schema change is run again afresh.
   */
  async authStatement<T>(
    ctx: ProjectRequestContext,
    request: { method: string; path: string },
    statement: { text: string; values: unknown[]; read(rows: Record<string, unknown>[]): T },
  ): Promise<T> {
    const pool = this.pool(ctx.context);
    const settings = {
      ...request,
      role: AUTH_ADMIN_ROLE,
      claims: ctx.claims,
      searchPath: ['auth'],
    };
    for (let attempt = 0; ; attempt++) {
      const generation = this.schemaVersions.get(pool);
      try {
        const result = await pipelinedStatement(pool, settings, statement, generation);
        this.schemaVersions.set(pool, result.schemaVersion);
        return statement.read(result.rows);
      } catch (e) {
        if (!(e instanceof PipelinedStatementError)) throw e;
        const seen = e.schemaVersion;
        if (seen !== undefined) this.schemaVersions.set(pool, seen);
        // Prepared under another schema version ("cached plan must not change result type"
        // and the like): the transaction rolled back, so running it again is safe.
        const stale = generation !== undefined && seen !== undefined && seen !== generation;
        if (!stale || attempt > 0) throw e.error;
      }
    }
  }

  /** A read-only request transaction in one pipelined round trip (see pipelinedRead). */
  pipelinedRead(
    ctx: ProjectRequestContext,
    request: ProjectRequestOptions,
    statement: { text: string; values: unknown[] },
    generation?: number,
  ): Promise<PipelinedResult> {
    return pipelinedRead(
      this.pool(ctx.context),
      { ...request, role: ctx.role, claims: ctx.claims },
      statement,
      generation,
    );
  }

  /** A read-write request transaction in two round trips (see pipelinedTransaction). */
  pipelinedTransaction<T>(
    ctx: ProjectRequestContext,
    request: ProjectRequestOptions,
    statement: { text: string; values: unknown[] },
    finish: (result: PipelinedResult) => PipelineOutcome<T>,
    generation?: number,
  ): Promise<T> {
    return pipelinedTransaction(
      this.pool(ctx.context),
      { ...request, role: ctx.role, claims: ctx.claims },
      statement,
      finish,
      generation,
    );
  }

  pool(context: ProjectContext): Pool {
    // Keyed by ref first so closeProject(ref) finds it; the database name guards against
    // reusing a pool opened for another database under the same ref.
    return this.pools.get(`${context.ref}:${context.dbName}`, () => ({
      connectionString: connectionUrl(this.clusterUrl(context), context.dbName, {
        name: AUTHENTICATOR_ROLE,
        password: this.password,
      }),
      application_name: 'baseplate-data-plane',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    }));
  }

  closeProject(ref: string): void {
    this.pools.closeMatching(ref);
  }

  get openPools(): number {
    return this.pools.size;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pools.closeAll();
  }

  private clusterUrl(context: ProjectContext): string {
    // Only the default cluster exists so far (ARCHITECTURE §11 adds more).
    if (context.cluster !== DEFAULT_CLUSTER) {
      throw Errors.internal(
        new Error(`Project ${context.ref} is on unknown cluster ${context.cluster}`),
      );
    }
    return this.config.databaseUrl;
  }
}
