import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  UpdateDateColumn,
  ValueTransformer,
} from 'typeorm';

export const PROJECT_STATUSES = [
  'COMING_UP',
  'ACTIVE_HEALTHY',
  'INIT_FAILED',
  'GOING_DOWN',
] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** pg returns bigint as a string; Unix seconds fit a JS number comfortably. */
const bigintAsNumber: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};

/** Mirrors prisma-free-migrations/control/0002-create-projects.sql. */
@Entity({ name: 'projects' })
export class Project {
  @PrimaryColumn({ type: 'text' })
  ref!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', default: 'COMING_UP' })
  status!: ProjectStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason!: string | null;

  @Column({ type: 'integer', default: 0 })
  progress!: number;

  @Column({ type: 'text', default: 'default' })
  cluster!: string;

  @Column({ name: 'db_name', type: 'text' })
  dbName!: string;

  /** JWT secret sealed with MASTER_KEY (SecretBox). */
  @Column({ name: 'jwt_secret_enc', type: 'text', nullable: true })
  jwtSecretEnc!: string | null;

  /** `iat` of the current API keys, Unix seconds; keys are re-derived from it. */
  @Column({ name: 'keys_issued_at', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  keysIssuedAt!: number | null;

  @Column({ name: 'keys_version', type: 'integer', default: 0 })
  keysVersion!: number;

  /** Password of the `<ref>_admin` role, sealed with MASTER_KEY. */
  @Column({ name: 'admin_password_enc', type: 'text', nullable: true })
  adminPasswordEnc!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
