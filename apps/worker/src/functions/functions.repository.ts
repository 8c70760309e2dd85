import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FUNCTION_DEFAULTS, type FunctionSettings } from '@baseplate/control-db';

/** `functions` rows as the deploy job writes them: compare-and-set on the version. */
@Injectable()
export class FunctionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async limits(ref: string): Promise<FunctionSettings> {
    const rows = (await this.dataSource.query(
      `SELECT timeout_ms, memory_mb, max_payload_bytes, max_concurrency
         FROM project_function_configs WHERE project_ref = $1`,
      [ref],
    )) as Array<Record<string, number>>;
    const row = rows[0];
    if (!row) return FUNCTION_DEFAULTS;
    return {
      timeoutMs: row.timeout_ms!,
      memoryMb: row.memory_mb!,
      maxPayloadBytes: row.max_payload_bytes!,
      maxConcurrency: row.max_concurrency!,
    };
  }

  /**
   * Stores version `expectedVersion + 1`; undefined when another deploy (or a delete) changed
   * the function first, or the project is gone.
   */
  async store(input: {
    ref: string;
    slug: string;
    name: string;
    source: string;
    code: string;
    expectedVersion: number;
  }): Promise<{ id: string; version: number } | undefined> {
    const rows = (await (input.expectedVersion === 0
      ? this.dataSource.query(
          `INSERT INTO functions (project_ref, slug, name, version, source, code)
           SELECT $1, $2, $3, 1, $4, $5 WHERE EXISTS (SELECT 1 FROM projects WHERE ref = $1)
           ON CONFLICT (project_ref, slug) DO NOTHING
           RETURNING id, version`,
          [input.ref, input.slug, input.name, input.source, input.code],
        )
      : this.dataSource.query(
          `UPDATE functions SET version = version + 1, name = $3, source = $4, code = $5,
                  status = 'ACTIVE', updated_at = now()
            WHERE project_ref = $1 AND slug = $2 AND version = $6
            RETURNING id, version`,
          [input.ref, input.slug, input.name, input.source, input.code, input.expectedVersion],
        ))) as
      Array<{ id: string; version: number }> | [Array<{ id: string; version: number }>, number];
    // TypeORM answers an UPDATE ... RETURNING with [rows, count].
    const list = Array.isArray(rows[0])
      ? (rows[0] as Array<{ id: string; version: number }>)
      : (rows as Array<{ id: string; version: number }>);
    return list[0];
  }
}
