import { UnrecoverableError } from 'bullmq';
import { AppConfig } from '@baseplate/config';
import { ProjectStatus } from '@baseplate/control-db';
import { EmailMessage } from '@baseplate/jobs';
import { CapturedEmailRepository, ProjectGoneError } from './captured-email.repository';
import { ProjectSmtpSettings, Sender, SmtpTarget } from './delivery-plan';
import { Mailer, sendFailure } from './mailer.service';
import {
  ProjectMailSettings,
  ProjectMailSettingsRepository,
} from './project-mail-settings.repository';
import { SmtpSender } from './smtp-sender';

type Public<T> = { [K in keyof T]: T[K] };

const REF = 'abcdefghij0123456789';
const message: EmailMessage = {
  kind: 'signup',
  to: 'ada@example.com',
  subject: 'Confirm your signup',
  html: '<a href="http://x/verify?token=secret-token">Confirm</a>',
  text: 'http://x/verify?token=secret-token',
};
const smtp: ProjectSmtpSettings = {
  host: 'mail.acme.test',
  port: 587,
  user: 'acme',
  pass: 'smtp-password',
  adminEmail: 'support@acme.test',
  senderName: 'Acme',
};

class FakeSettings implements Public<ProjectMailSettingsRepository> {
  projects = new Map<string, ProjectMailSettings>();
  add(status: ProjectStatus, settings: ProjectSmtpSettings | null = null) {
    this.projects.set(REF, { status, smtp: settings });
  }
  async find(ref: string) {
    return this.projects.get(ref) ?? null;
  }
}

class FakeCaptured implements Public<CapturedEmailRepository> {
  rows: { ref: string; message: EmailMessage; keep: number }[] = [];
  failWith?: Error;
  async capture(ref: string, m: EmailMessage, keep: number) {
    if (this.failWith) throw this.failWith;
    this.rows.push({ ref, message: m, keep });
    return 0;
  }
}

class FakeSmtp implements Public<SmtpSender> {
  sent: { target: SmtpTarget; from: Sender; message: EmailMessage }[] = [];
  failWith?: unknown;
  async send(target: SmtpTarget, from: Sender, m: EmailMessage) {
    if (this.failWith) throw this.failWith;
    this.sent.push({ target, from, message: m });
  }
}

describe('Mailer', () => {
  let settings: FakeSettings;
  let captured: FakeCaptured;
  let sender: FakeSmtp;
  const mailer = (extra: Partial<AppConfig> = {}) =>
    new Mailer(
      { smtpFrom: 'Baseplate <noreply@localhost>', capturedEmailsKeep: 200, ...extra } as AppConfig,
      settings as unknown as ProjectMailSettingsRepository,
      captured as unknown as CapturedEmailRepository,
      sender as unknown as SmtpSender,
    );

  beforeEach(() => {
    settings = new FakeSettings();
    captured = new FakeCaptured();
    sender = new FakeSmtp();
  });

  it('captures when no SMTP is configured, with the configured retention', async () => {
    settings.add('ACTIVE_HEALTHY');
    const result = await mailer({ capturedEmailsKeep: 3 }).deliver({ ref: REF, message });
    expect(result).toEqual({ ref: REF, kind: 'signup', outcome: 'captured' });
    expect(captured.rows).toEqual([{ ref: REF, message, keep: 3 }]);
    expect(sender.sent).toEqual([]);
  });

  it("sends through the project's SMTP server, and captures nothing", async () => {
    settings.add('ACTIVE_HEALTHY', smtp);
    const result = await mailer({ smtpUrl: 'smtp://platform.test' }).deliver({ ref: REF, message });
    expect(result.outcome).toBe('sent-project-smtp');
    expect(sender.sent).toHaveLength(1);
    expect(sender.sent[0].target).toMatchObject({
      host: 'mail.acme.test',
      auth: { user: 'acme', pass: 'smtp-password' },
    });
    expect(sender.sent[0].from).toEqual({ name: 'Acme', address: 'support@acme.test' });
    expect(captured.rows).toEqual([]);
  });

  it('sends through SMTP_URL from SMTP_FROM when the project has no server', async () => {
    settings.add('ACTIVE_HEALTHY', { ...smtp, host: null });
    const result = await mailer({ smtpUrl: 'smtp://platform.test:2525' }).deliver({
      ref: REF,
      message,
    });
    expect(result.outcome).toBe('sent-platform-smtp');
    expect(sender.sent[0]).toMatchObject({
      target: { host: 'platform.test', port: 2525 },
      from: 'Baseplate <noreply@localhost>',
    });
  });

  it('fails a send for a retry, with codes only and never a capture', async () => {
    settings.add('ACTIVE_HEALTHY', smtp);
    sender.failWith = Object.assign(
      new Error('Invalid login: 535 smtp-password rejected for acme'),
      {
        code: 'EAUTH',
        responseCode: 535,
        permanent: true,
        response: '535 smtp-password rejected',
      },
    );
    const error = await mailer()
      .deliver({ ref: REF, message })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toBe('Delivery through project-smtp failed: EAUTH 535');
    expect(captured.rows).toEqual([]);
  });

  it.each([
    ['an unknown project', undefined],
    ['a project being deleted', 'GOING_DOWN' as const],
  ])('does not retry for %s', async (_what, status) => {
    if (status) settings.add(status);
    await expect(mailer().deliver({ ref: REF, message })).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
    expect(captured.rows).toEqual([]);
  });

  it('does not retry a capture for a project deleted meanwhile', async () => {
    settings.add('ACTIVE_HEALTHY');
    captured.failWith = new ProjectGoneError(`Project ${REF} is gone`);
    await expect(mailer().deliver({ ref: REF, message })).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
  });

  it('retries a capture that failed for another reason', async () => {
    settings.add('ACTIVE_HEALTHY');
    captured.failWith = new Error('connection terminated');
    const error = await mailer()
      .deliver({ ref: REF, message })
      .catch((e: Error) => e);
    expect(error).not.toBeInstanceOf(UnrecoverableError);
  });

  it.each([
    ['a bad ref', { ref: 'NOT-A-REF', message }],
    ['no message', { ref: REF }],
    ['a missing field', { ref: REF, message: { ...message, html: undefined } }],
    ['an odd kind', { ref: REF, message: { ...message, kind: 'signup\nforged log line' } }],
    ['no recipient', { ref: REF, message: { ...message, to: '' } }],
  ])('refuses a payload with %s without a retry', async (_what, payload) => {
    settings.add('ACTIVE_HEALTHY');
    await expect(mailer().deliver(payload as never)).rejects.toBeInstanceOf(UnrecoverableError);
  });
});

describe('sendFailure', () => {
  it('keeps codes and drops the reply text', () => {
    const e = sendFailure(
      'platform-smtp',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:25'), {
        code: 'ESOCKET',
        originalCode: 'ECONNREFUSED',
      }),
    );
    expect(e.message).toBe('Delivery through platform-smtp failed: ESOCKET ECONNREFUSED');
    expect(e).not.toBeInstanceOf(UnrecoverableError);
  });

  it('does not retry a message the server refuses for good', () => {
    const e = sendFailure('project-smtp', {
      code: 'EENVELOPE',
      responseCode: 550,
      permanent: true,
    });
    expect(e).toBeInstanceOf(UnrecoverableError);
    expect(e.message).toBe('Delivery through project-smtp failed: EENVELOPE 550');
  });

  it('retries a temporary refusal and survives a thrown non-error', () => {
    expect(
      sendFailure('project-smtp', { code: 'EMESSAGE', responseCode: 451, permanent: false }),
    ).not.toBeInstanceOf(UnrecoverableError);
    expect(sendFailure('project-smtp', 'boom').message).toBe(
      'Delivery through project-smtp failed: unknown error',
    );
  });
});
