import { Module } from '@nestjs/common';
import { CapturedEmailRepository } from './captured-email.repository';
import { EmailProcessor } from './email.processor';
import { Mailer } from './mailer.service';
import { ProjectMailSettingsRepository } from './project-mail-settings.repository';
import { SmtpSender } from './smtp-sender';

/** The `email` queue: auth emails sent through SMTP, or captured when there is none. */
@Module({
  providers: [
    ProjectMailSettingsRepository,
    CapturedEmailRepository,
    SmtpSender,
    Mailer,
    EmailProcessor,
  ],
})
export class EmailModule {}
