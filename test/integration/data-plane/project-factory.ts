import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { SignJWT } from 'jose';
import { Pool } from 'pg';
import { AppConfig } from '@baseplate/config';
import { ProjectStatus } from '@baseplate/control-db';
import {
  adminRoleName,
  connectionUrl,
  createProjectDatabase,
  dropProjectDatabase,
  finishProjectDatabase,
  projectDbName,
} from '@baseplate/database';
import { createRedis, publishProjectInvalidation } from '@baseplate/jobs';
import { generateProjectRef, randomSecret, SecretBox, signApiKey } from '@baseplate/security';

export interface TestProject {
  ref: string;
  secret: string;
  anonKey: string;
  serviceKey: string;
  /** Connection URL of `<ref>_admin` on the project database (only with `database: true`). */
  adminUrl: string;
}

export interface NewProjectOptions {
  status?: ProjectStatus;
  /** Create and finish proj_<ref> from the template (slower; only the database tests need it). */
  database?: boolean;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Provisions projects the way the worker does, without the worker: a control-database row
 * with a sealed JWT secret, and optionally the project database from the template.
 */
export class ProjectFactory {
  private readonly control: Pool;
  private readonly box: SecretBox;
  private readonly refs: string[] = [];
  private readonly databases: string[] = [];
  private accountId?: string;
  private redis?: Redis;

  constructor(private readonly config: AppConfig) {
    this.control = new Pool({ connectionString: config.databaseUrl, max: 2 });
    this.box = new SecretBox(config.masterKey);
  }

  async newProject(options: NewProjectOptions = {}): Promise<TestProject> {
    const ref = generateProjectRef();
    const secret = randomSecret();
    const issuedAt = nowSeconds();
    await this.control.query(
      `INSERT INTO projects (ref, account_id, name, status, db_name, jwt_secret_enc, keys_issued_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        ref,
        await this.account(),
        `test ${ref}`,
        options.status ?? 'ACTIVE_HEALTHY',
        projectDbName(ref),
        this.box.seal(secret),
        issuedAt,
      ],
    );
    this.refs.push(ref);
    const adminPassword = randomSecret(18);
    if (options.database) {
      this.databases.push(ref);
      await createProjectDatabase(this.config.databaseUrl, ref, this.config.projectTemplateDb);
      await finishProjectDatabase(this.config.databaseUrl, ref, adminPassword);
    }
    return {
      ref,
      secret,
      ...(await this.keys(ref, secret, issuedAt)),
      adminUrl: connectionUrl(this.config.databaseUrl, projectDbName(ref), {
        name: adminRoleName(ref),
        password: adminPassword,
      }),
    };
  }

  /** A user access token as auth will issue it; `claims` override the defaults. */
  userToken(
    project: Pick<TestProject, 'ref' | 'secret'>,
    claims: Record<string, unknown> = {},
    expiresIn = 3600,
  ): Promise<string> {
    const iat = nowSeconds();
    return new SignJWT({
      role: 'authenticated',
      ref: project.ref,
      sub: randomUUID(),
      aud: 'authenticated',
      ...claims,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + expiresIn)
      .sign(new TextEncoder().encode(project.secret));
  }

  async setStatus(ref: string, status: ProjectStatus): Promise<void> {
    await this.control.query('UPDATE projects SET status = $2 WHERE ref = $1', [ref, status]);
  }

  /** What rotate-keys does to the row: a new secret, new keys (not yet announced). */
  async rotateSecret(ref: string): Promise<Pick<TestProject, 'secret' | 'anonKey' | 'serviceKey'>> {
    const secret = randomSecret();
    const issuedAt = nowSeconds();
    await this.control.query(
      'UPDATE projects SET jwt_secret_enc = $2, keys_issued_at = $3, keys_version = keys_version + 1 WHERE ref = $1',
      [ref, this.box.seal(secret), issuedAt],
    );
    return { secret, ...(await this.keys(ref, secret, issuedAt)) };
  }

  /** A sealed secret that no longer opens (MASTER_KEY changed, row damaged). */
  async corruptSecret(ref: string): Promise<void> {
    await this.control.query("UPDATE projects SET jwt_secret_enc = 'v1.broken' WHERE ref = $1", [
      ref,
    ]);
  }

  async deleteRow(ref: string): Promise<void> {
    await this.control.query('DELETE FROM projects WHERE ref = $1', [ref]);
  }

  /** Tells every data plane listening on this config's prefix to drop `ref`. */
  async publishInvalidation(ref: string): Promise<void> {
    this.redis ??= createRedis(this.config.redisUrl);
    await publishProjectInvalidation(this.redis, this.config.queuePrefix, ref);
  }

  /** Drops the data plane's subscriber connection, as a network blip or Redis restart would. */
  async killInvalidationSubscriber(): Promise<number> {
    this.redis ??= createRedis(this.config.redisUrl);
    const list = (await this.redis.client('LIST')) as string;
    const name = `${this.config.queuePrefix}:data-plane-invalidation`;
    const ids = list
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /\bid=(\d+)/.exec(line)![1]!);
    for (const id of ids) await this.redis.client('KILL', 'ID', id);
    return ids.length;
  }

  async cleanup(): Promise<void> {
    for (const ref of this.databases) await dropProjectDatabase(this.config.databaseUrl, ref);
    if (this.refs.length > 0)
      await this.control.query('DELETE FROM projects WHERE ref = ANY($1)', [this.refs]);
    if (this.accountId)
      await this.control.query('DELETE FROM accounts WHERE id = $1', [this.accountId]);
    await this.control.end();
    await this.redis?.quit();
  }

  private async keys(
    ref: string,
    secret: string,
    issuedAt: number,
  ): Promise<Pick<TestProject, 'anonKey' | 'serviceKey'>> {
    return {
      anonKey: await signApiKey(secret, ref, 'anon', issuedAt),
      serviceKey: await signApiKey(secret, ref, 'service_role', issuedAt),
    };
  }

  private async account(): Promise<string> {
    if (!this.accountId) {
      const { rows } = await this.control.query<{ id: string }>(
        'INSERT INTO accounts (email, password_hash) VALUES ($1, $2) RETURNING id',
        [`dp-${randomUUID()}@example.test`, 'not-a-real-hash'],
      );
      this.accountId = rows[0]!.id;
    }
    return this.accountId;
  }
}
