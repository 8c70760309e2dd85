import { Pool } from 'pg';
import { SecretBox } from '@baseplate/security';
import { ProjectStatus } from './entities/project.entity';

/** What the data plane needs to serve a project. Holds the decrypted JWT secret: never log it. */
export interface ProjectContext {
  ref: string;
  status: ProjectStatus;
  dbName: string;
  cluster: string;
  jwtSecret: string | null;
  keysVersion: number;
}

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
    const { rows } = await this.pool.query<{
      ref: string;
      status: ProjectStatus;
      db_name: string;
      cluster: string;
      jwt_secret_enc: string | null;
      keys_version: number;
    }>(
      'SELECT ref, status, db_name, cluster, jwt_secret_enc, keys_version FROM projects WHERE ref = $1',
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
    };
  }
}
