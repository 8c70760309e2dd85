import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Mirrors prisma-free-migrations/control/0004-create-captured-emails.sql: an auth email of a
 * project with no SMTP to send it through. Its links carry live one-time tokens, so rows are
 * shown to the project's owner only and never logged.
 */
@Entity({ name: 'captured_emails' })
export class CapturedEmail {
  /** bigserial: pg returns int8 as a string. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column({ name: 'project_ref', type: 'text' })
  projectRef!: string;

  /** An EmailKind of @baseplate/jobs (signup, recovery, ...). */
  @Column({ type: 'text' })
  kind!: string;

  @Column({ name: 'to_address', type: 'text' })
  toAddress!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  html!: string;

  @Column({ name: 'text_body', type: 'text' })
  textBody!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
