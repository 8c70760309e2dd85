import { Injectable } from '@nestjs/common';
import { Errors } from '@baseplate/errors';
import { sha256Hex } from '@baseplate/security';
import { ProjectSqlService } from '../projects/project-sql.service';
import { ProjectsService } from '../projects/projects.service';
import { SecretDigestResponse } from './dto/secrets.dto';

/** Secrets live in the project's own `project_secrets` table, where functions read them with the service key. */
@Injectable()
export class SecretsService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly sql: ProjectSqlService,
  ) {}

  async list(accountId: string, ref: string): Promise<SecretDigestResponse[]> {
    const project = await this.projects.getActive(accountId, ref);
    const rows = await this.sql.asServiceRole(
      project,
      async (c) =>
        (
          await c.query<{ name: string; value: string }>(
            'SELECT name, value FROM public.project_secrets ORDER BY name',
          )
        ).rows,
    );
    return rows.map((r) => ({ name: r.name, value: sha256Hex(r.value) }));
  }

  async upsert(
    accountId: string,
    ref: string,
    secrets: { name: string; value: string }[],
  ): Promise<SecretDigestResponse[]> {
    if (secrets.length === 0) throw Errors.badRequest('Give at least one secret');
    const names = secrets.map((s) => s.name);
    if (new Set(names).size !== names.length)
      throw Errors.badRequest('Each secret name may appear once');
    const project = await this.projects.getActive(accountId, ref);
    await this.sql.asServiceRole(project, (c) =>
      c.query(
        `INSERT INTO public.project_secrets (name, value)
         SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now()`,
        [names, secrets.map((s) => s.value)],
      ),
    );
    return secrets.map((s) => ({ name: s.name, value: sha256Hex(s.value) }));
  }

  async remove(accountId: string, ref: string, names: string[]): Promise<{ deleted: string[] }> {
    if (names.length === 0) throw Errors.badRequest('Give at least one secret name');
    const project = await this.projects.getActive(accountId, ref);
    const rows = await this.sql.asServiceRole(
      project,
      async (c) =>
        (
          await c.query<{ name: string }>(
            'DELETE FROM public.project_secrets WHERE name = ANY($1::text[]) RETURNING name',
            [names],
          )
        ).rows,
    );
    return { deleted: rows.map((r) => r.name).sort() };
  }
}
