import { Inject, Injectable } from '@nestjs/common';
import { Client, DatabaseError, Query } from 'pg';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { Project } from '@baseplate/control-db';
import { adminRoleName, connectionUrl, inTransaction, withClient } from '@baseplate/database';
import { Errors } from '@baseplate/errors';
import { ProjectsService } from './projects.service';

/**
 * Connections from the control plane into a project database. Each call uses its own
 * short-lived connection: the SQL endpoint runs arbitrary statements (SET, BEGIN, temp
 * tables) whose session state must never leak into another request.
 */
const CLIENT_GRACE_MS = 1000;

class ResultTooLargeError extends Error {}
class ClientTimeoutError extends Error {}

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
      application_name: 'baseplate-sql',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await this.lastResultRows(client, sql);
    } catch (e) {
      if (e instanceof ResultTooLargeError) {
        await this.terminate(client);
        throw Errors.badRequest(
          `The result is larger than ${this.config.sqlResultMaxBytes} bytes: select fewer rows or columns`,
        );
      }
      if (e instanceof ClientTimeoutError) {
        await this.terminate(client);
        throw Errors.timeout('The query took too long and was stopped');
      }
      if (e instanceof DatabaseError) throw Errors.sql(e.message, e.code);
      throw e;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Streams the rows instead of letting pg collect every statement's result: only the last
   * statement's rows are kept, and past SQL_RESULT_MAX_BYTES the query is abandoned, so a
   * huge result cannot exhaust the control plane's memory. The SQL may also lift its own
   * statement_timeout (`SET statement_timeout = 0`), so a bound of our own runs beside it.
   * (pg's `query_timeout` cannot serve: it installs a callback on the query, which makes pg
   * collect every row again and swallows the error event.)
   */
  private lastResultRows(client: Client, sql: string): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      const query = new Query(sql);
      let current: unknown;
      let rows: Record<string, unknown>[] = [];
      let bytes = 0;
      let failed = false;
      const fail = (e: Error): void => {
        if (failed) return;
        failed = true;
        clearTimeout(timer);
        reject(e);
      };
      const timer = setTimeout(
        () => fail(new ClientTimeoutError()),
        this.config.sqlStatementTimeoutMs + CLIENT_GRACE_MS,
      );
      query.on('row', (row: Record<string, unknown>, result: unknown) => {
        if (failed) return;
        if (result !== current) {
          current = result;
          rows = [];
          bytes = 0;
        }
        bytes += JSON.stringify(row).length;
        if (bytes > this.config.sqlResultMaxBytes) return fail(new ResultTooLargeError());
        rows.push(row);
      });
      query.on('end', (results: unknown) => {
        if (failed) return;
        clearTimeout(timer);
        const last = Array.isArray(results) ? results[results.length - 1] : results;
        resolve(last === current ? rows : []);
      });
      query.on('error', fail);
      void client.query(query);
    });
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
    try {
      return await withClient(url, (client) =>
        inTransaction(client, async () => {
          await client.query(
            "SELECT set_config('role', 'service_role', true), set_config('search_path', '', true)",
          );
          return fn(client);
        }),
      );
    } catch (e) {
      if (e instanceof DatabaseError) throw Errors.sql(e.message, e.code);
      throw e;
    }
  }
}
