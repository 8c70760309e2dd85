import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** Mirrors prisma-free-migrations/control/0005-create-functions.sql (functions). */
@Entity({ name: 'functions' })
export class EdgeFunction {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'project_ref', type: 'text' })
  projectRef!: string;

  @Column({ type: 'text' })
  slug!: string;

  @Column({ type: 'text' })
  name!: string;

  /** The active version: 1 at the first deploy, +1 at each successful redeploy. */
  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text', default: 'ACTIVE' })
  status!: string;

  /** As deployed (JavaScript or TypeScript). */
  @Column({ type: 'text' })
  source!: string;

  /** CommonJS compiled by esbuild: what the runtime loads. */
  @Column({ type: 'text' })
  code!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** Mirrors 0005 (function_invocations): one call, as the data plane recorded it. */
@Entity({ name: 'function_invocations' })
export class FunctionInvocation {
  /** bigserial: pg returns int8 as a string. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column({ name: 'function_id', type: 'uuid' })
  functionId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'http_status', type: 'integer' })
  httpStatus!: number;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  logs!: unknown[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** Mirrors 0005 (project_function_configs): a project's function limits. */
@Entity({ name: 'project_function_configs' })
export class ProjectFunctionConfig {
  @PrimaryColumn({ name: 'project_ref', type: 'text' })
  projectRef!: string;

  @Column({ name: 'timeout_ms', type: 'integer', default: 10000 })
  timeoutMs!: number;

  @Column({ name: 'memory_mb', type: 'integer', default: 128 })
  memoryMb!: number;

  @Column({ name: 'max_payload_bytes', type: 'integer', default: 6291456 })
  maxPayloadBytes!: number;

  @Column({ name: 'max_concurrency', type: 'integer', default: 10 })
  maxConcurrency!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
