import { Inject, Injectable } from '@nestjs/common';
import { Client, DatabaseError, QueryResult } from 'pg';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Project } from '@baseplate/control-db';
import { adminRoleName, connectionUrl, withClient } from '@baseplate/database';
import { Errors } from '@baseplate/errors';
import { ProjectsService } from './projects.service';

/**
 * Connections from the control plane into a project database. Each call uses its own
 * short-lived connection: the SQL endpoint runs arbitrary statements (SET, BEGIN, temp
 * tables) whose session state must never leak into another request.
 */
const CLIENT_GRACE_MS = 1000;

@Injectable()
export class ProjectSqlService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly projects: ProjectsService,
  ) {}

  /** As the project's own `<ref>_admin` role, so the caller can do exactly what that role may. */
  async runAsAdmin(project: Project, sql: string): Promise<Record<string, unknown>[]> {
    const client = new Client({
      connectionString: connectionUrl(this.config.databaseUrl, project.dbName, {
        name: adminRoleName(project.ref),
        password: this.projects.adminPassword(project),
      }),
      statement_timeout: this.config.sqlStatementTimeoutMs,
      // The SQL may lift its own statement_timeout (`SET statement_timeout = 0`), so the
      // client holds a bound of its own and, past it, terminates the backend.
      query_timeout: this.config.sqlStatementTimeoutMs + CLIENT_GRACE_MS,
      application_name: 'baseplate-sql',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const result = (await client.query(sql)) as QueryResult | QueryResult[];
      const last = Array.isArray(result) ? result[result.length - 1] : result;
      return (last?.rows ?? []) as Record<string, unknown>[];
    } catch (e) {
      if (e instanceof DatabaseError) throw Errors.sql(e.message, e.code);
      if (e instanceof Error && /timeout/i.test(e.message)) {
        await this.terminate(client);
        throw Errors.timeout('The query took too long and was stopped');
      }
      throw e;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async terminate(client: Client): Promise<void> {
    const pid = (client as Client & { processID?: number }).processID;
    if (!pid) return;
    await withClient(this.config.databaseUrl, (admin) =>
      admin.query('SELECT pg_terminate_backend($1)', [pid]),
    ).catch(() => undefined);
  }

  /**
   * As `service_role`, for project_secrets. The session belongs to the project's own admin
   * role, never to a superuser: the tenant owns `public` and can replace the table with one
   * carrying triggers, and a trigger can RESET ROLE to the session user. This way the worst
   * it reaches is the tenant's own role.
   */
  async asServiceRole<T>(project: Project, fn: (client: Client) => Promise<T>): Promise<T> {
    const url = connectionUrl(this.config.databaseUrl, project.dbName, {
      name: adminRoleName(project.ref),
      password: this.projects.adminPassword(project),
    });
    return withClient(url, async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(
          "SELECT set_config('role', 'service_role', true), set_config('search_path', '', true)",
        );
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (e instanceof DatabaseError) throw Errors.sql(e.message, e.code);
        throw e;
      }
    });
  }
}
