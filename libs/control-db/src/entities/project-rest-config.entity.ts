import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The column defaults of project_rest_configs: what a project without a row gets. */
export const REST_CONFIG_DEFAULTS = Object.freeze({
  dbSchema: 'public',
  dbExtraSearchPath: 'public',
  maxRows: 1000,
});

/**
 * Mirrors prisma-free-migrations/control/0003-create-project-rest-configs.sql. Rows are made
 * on the first PATCH; a project without one has the column defaults.
 */
@Entity({ name: 'project_rest_configs' })
export class ProjectRestConfig {
  @PrimaryColumn({ name: 'project_ref', type: 'text' })
  projectRef!: string;

  /** Comma-separated schemas the REST API exposes; the first is the default one. */
  @Column({ name: 'db_schema', type: 'text', default: REST_CONFIG_DEFAULTS.dbSchema })
  dbSchema!: string;

  /** Comma-separated schemas appended to the search_path of every REST request. */
  @Column({
    name: 'db_extra_search_path',
    type: 'text',
    default: REST_CONFIG_DEFAULTS.dbExtraSearchPath,
  })
  dbExtraSearchPath!: string;

  @Column({ name: 'max_rows', type: 'integer', default: REST_CONFIG_DEFAULTS.maxRows })
  maxRows!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
