import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Mirrors prisma-free-migrations/control/0002-create-projects.sql (project_auth_configs). */
@Entity({ name: 'project_auth_configs' })
export class ProjectAuthConfig {
  @PrimaryColumn({ name: 'project_ref', type: 'text' })
  projectRef!: string;

  @Column({ name: 'site_url', type: 'text', default: 'http://localhost:3000' })
  siteUrl!: string;

  /** Comma-separated, as Supabase's `uri_allow_list`. */
  @Column({ name: 'uri_allow_list', type: 'text', default: '' })
  uriAllowList!: string;

  @Column({ name: 'mailer_autoconfirm', type: 'boolean', default: false })
  mailerAutoconfirm!: boolean;

  @Column({ name: 'jwt_exp', type: 'integer', default: 3600 })
  jwtExp!: number;

  @Column({ name: 'password_min_length', type: 'integer', default: 6 })
  passwordMinLength!: number;

  @Column({ name: 'smtp_host', type: 'text', nullable: true })
  smtpHost!: string | null;

  @Column({ name: 'smtp_port', type: 'integer', nullable: true })
  smtpPort!: number | null;

  @Column({ name: 'smtp_user', type: 'text', nullable: true })
  smtpUser!: string | null;

  /** Sealed with MASTER_KEY; never returned by the API. */
  @Column({ name: 'smtp_pass_enc', type: 'text', nullable: true })
  smtpPassEnc!: string | null;

  @Column({ name: 'smtp_admin_email', type: 'text', nullable: true })
  smtpAdminEmail!: string | null;

  @Column({ name: 'smtp_sender_name', type: 'text', nullable: true })
  smtpSenderName!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
