import { Inject, Injectable } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { EmailMessage, EmailPayloads } from '@baseplate/jobs';
import { isProjectRef } from '@baseplate/security';
import { CapturedEmailRepository, ProjectGoneError } from './captured-email.repository';
import { DeliveryVia, planDelivery } from './delivery-plan';
import { ProjectMailSettingsRepository } from './project-mail-settings.repository';
import { SmtpSender } from './smtp-sender';

export type DeliveryOutcome = 'sent-project-smtp' | 'sent-platform-smtp' | 'captured';

/** What a finished job reports (and the worker logs): no address, subject, body or link. */
export interface DeliveryResult {
  ref: string;
  kind: string;
  outcome: DeliveryOutcome;
}

const OUTCOME: Record<DeliveryVia, DeliveryOutcome> = {
  'project-smtp': 'sent-project-smtp',
  'platform-smtp': 'sent-platform-smtp',
};

/** Kind is logged, so it is held to a word. */
const KIND = /^[a-z_]{1,32}$/;
/** Error codes are copied into the job's failure reason; anything else there could echo content. */
const ERROR_CODE = /^[A-Z_]{1,32}$/;

/** The fields of a nodemailer error this class reads. */
interface SendError {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  permanent?: unknown;
}

/**
 * Delivers one auth email: through the project's SMTP server, else the platform's, else
 * into captured_emails (see planDelivery). Errors carry codes only, never the server's reply
 * text, the message or the credentials, because BullMQ stores them and the worker logs them.
 */
@Injectable()
export class Mailer {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: ProjectMailSettingsRepository,
    private readonly captured: CapturedEmailRepository,
    private readonly smtp: SmtpSender,
  ) {}

  async deliver(payload: EmailPayloads['send-email']): Promise<DeliveryResult> {
    const { ref, message } = checkedPayload(payload);
    const project = await this.settings.find(ref);
    // A deleted (or deleting) project's users are gone with it: retrying cannot help.
    if (!project || project.status === 'GOING_DOWN') {
      throw new UnrecoverableError(`Project ${ref} does not exist`);
    }
    const plan = planDelivery(project.smtp, {
      smtpUrl: this.config.smtpUrl,
      smtpFrom: this.config.smtpFrom,
    });
    if (plan.via === 'capture') {
      try {
        await this.captured.capture(ref, message, this.config.capturedEmailsKeep);
      } catch (e) {
        if (e instanceof ProjectGoneError) throw new UnrecoverableError(e.message);
        throw e;
      }
      return { ref, kind: message.kind, outcome: 'captured' };
    }
    try {
      await this.smtp.send(plan.smtp, plan.from, message);
    } catch (e) {
      throw sendFailure(plan.via, e);
    }
    return { ref, kind: message.kind, outcome: OUTCOME[plan.via] };
  }
}

/** A malformed payload fails the same way on every attempt: no retry. */
function checkedPayload(payload: unknown): EmailPayloads['send-email'] {
  const { ref, message } = (payload ?? {}) as { ref?: unknown; message?: Partial<EmailMessage> };
  const fieldsOk =
    typeof message === 'object' &&
    message !== null &&
    (['to', 'subject', 'html', 'text'] as const).every((f) => typeof message[f] === 'string') &&
    typeof message.kind === 'string' &&
    KIND.test(message.kind) &&
    message.to !== '';
  if (typeof ref !== 'string' || !isProjectRef(ref) || !fieldsOk) {
    throw new UnrecoverableError('Malformed send-email payload');
  }
  return { ref, message: message as EmailMessage };
}

/**
 * A retry is what fixes a server that is down or busy, and a wrong password once the owner
 * corrects it; a message the server refuses for good (5xx, e.g. an unknown mailbox) would
 * only be refused again.
 */
export function sendFailure(via: DeliveryVia, error: unknown): Error {
  const e = (typeof error === 'object' && error !== null ? error : {}) as SendError;
  const codes = [e.code, e.originalCode].filter(
    (c, i, all): c is string => typeof c === 'string' && ERROR_CODE.test(c) && all.indexOf(c) === i,
  );
  const reply = typeof e.responseCode === 'number' ? [String(e.responseCode)] : [];
  const detail = [...codes, ...reply].join(' ') || 'unknown error';
  const message = `Delivery through ${via} failed: ${detail}`;
  return e.permanent === true && e.code !== 'EAUTH'
    ? new UnrecoverableError(message)
    : new Error(message);
}
