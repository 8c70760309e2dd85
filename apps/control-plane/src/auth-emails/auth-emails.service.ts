import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { CapturedEmail } from '@baseplate/control-db';
import { ProjectsService } from '../projects/projects.service';
import { AuthEmailResponse, DEFAULT_EMAIL_LIMIT } from './dto/auth-emails.dto';

/**
 * Auth emails the worker captured because the project has no SMTP (and the platform no
 * SMTP_URL). Their links sign people in, so only the project's owner reads them.
 */
@Injectable()
export class AuthEmailsService {
  constructor(
    @InjectRepository(CapturedEmail) private readonly emails: Repository<CapturedEmail>,
    private readonly projects: ProjectsService,
  ) {}

  async list(
    accountId: string,
    ref: string,
    limit = DEFAULT_EMAIL_LIMIT,
  ): Promise<AuthEmailResponse[]> {
    await this.projects.getOwned(accountId, ref);
    const rows = await this.emails.find({
      where: { projectRef: ref },
      // The order of captured_emails_project_ref_created_at_idx; id breaks ties within a tick.
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    return rows.map((e) => ({
      id: Number(e.id),
      kind: e.kind,
      to: e.toAddress,
      subject: e.subject,
      html: e.html,
      text: e.textBody,
      created_at: e.createdAt.toISOString(),
    }));
  }
}
