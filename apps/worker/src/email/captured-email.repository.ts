import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { CapturedEmail } from '@baseplate/control-db';
import { EmailMessage } from '@baseplate/jobs';

/** The project row is gone: its captured emails would be deleted with it anyway. */
export class ProjectGoneError extends Error {
  override name = 'ProjectGoneError';
}

const FOREIGN_KEY_VIOLATION = '23503';

/** captured_emails: auth emails of projects without SMTP, newest `keep` kept per project. */
@Injectable()
export class CapturedEmailRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Stores the message and deletes the project's older ones past `keep`; returns how many went. */
  async capture(ref: string, message: EmailMessage, keep: number): Promise<number> {
    try {
      return await this.dataSource.transaction(async (tx) => {
        await tx.insert(CapturedEmail, {
          projectRef: ref,
          kind: message.kind,
          toAddress: message.to,
          subject: message.subject,
          html: message.html,
          textBody: message.text,
        });
        // TypeORM's postgres driver answers DELETE with [rows, rowCount].
        const [, pruned] = (await tx.query(
          `DELETE FROM captured_emails
            WHERE id IN (SELECT id FROM captured_emails WHERE project_ref = $1
                          ORDER BY created_at DESC, id DESC OFFSET $2)`,
          [ref, keep],
        )) as [unknown[], number];
        return pruned;
      });
    } catch (e) {
      const code = e instanceof QueryFailedError ? (e.driverError as { code?: string }).code : '';
      if (code === FOREIGN_KEY_VIOLATION) throw new ProjectGoneError(`Project ${ref} is gone`);
      throw e;
    }
  }
}
