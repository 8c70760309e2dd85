import {
  parseSmtpUrl,
  planDelivery,
  ProjectSmtpSettings,
  SMTP_TIMEOUT_MS,
  smtpTransportOptions,
} from './delivery-plan';

const none: ProjectSmtpSettings = {
  host: null,
  port: null,
  user: null,
  pass: null,
  adminEmail: null,
  senderName: null,
};
const projectSmtp: ProjectSmtpSettings = {
  host: 'mail.acme.test',
  port: 2525,
  user: 'acme',
  pass: 's3cret',
  adminEmail: 'support@acme.test',
  senderName: 'Acme Support',
};
const platformFrom = 'Baseplate <noreply@localhost>';

describe('planDelivery', () => {
  it("uses the project's SMTP server when it set a host, even with a platform SMTP_URL", () => {
    const plan = planDelivery(projectSmtp, {
      smtpUrl: 'smtp://p:q@platform.test',
      smtpFrom: platformFrom,
    });
    expect(plan).toEqual({
      via: 'project-smtp',
      smtp: {
        host: 'mail.acme.test',
        port: 2525,
        secure: false,
        auth: { user: 'acme', pass: 's3cret' },
      },
      from: { name: 'Acme Support', address: 'support@acme.test' },
    });
  });

  it.each([
    [465, true],
    [587, false],
    [25, false],
  ])('connects to project port %i with secure=%s', (port, secure) => {
    const plan = planDelivery({ ...projectSmtp, port }, { smtpFrom: platformFrom });
    expect(plan).toMatchObject({ via: 'project-smtp', smtp: { port, secure } });
  });

  it('defaults the project port to 587 and logs in only when a user is set', () => {
    const plan = planDelivery(
      { ...none, host: 'mail.acme.test', pass: 'ignored' },
      { smtpFrom: platformFrom },
    );
    expect(plan).toEqual({
      via: 'project-smtp',
      smtp: { host: 'mail.acme.test', port: 587, secure: false },
      from: platformFrom,
    });
  });

  it('sends from the bare admin address without a sender name, and from SMTP_FROM without either', () => {
    const bare = planDelivery({ ...projectSmtp, senderName: null }, { smtpFrom: platformFrom });
    expect(bare).toMatchObject({ from: 'support@acme.test' });
    const fallback = planDelivery({ ...projectSmtp, adminEmail: null }, { smtpFrom: platformFrom });
    expect(fallback).toMatchObject({ from: platformFrom });
  });

  it('uses the platform SMTP_URL with SMTP_FROM when the project has no host', () => {
    for (const project of [null, none, { ...none, host: '' }]) {
      const plan = planDelivery(project, {
        smtpUrl: 'smtps://mailer:pw@smtp.platform.test',
        smtpFrom: platformFrom,
      });
      expect(plan).toEqual({
        via: 'platform-smtp',
        smtp: {
          host: 'smtp.platform.test',
          port: 465,
          secure: true,
          auth: { user: 'mailer', pass: 'pw' },
        },
        from: platformFrom,
      });
    }
  });

  it('captures when neither the project nor the platform has SMTP', () => {
    expect(planDelivery(null, { smtpFrom: platformFrom })).toEqual({ via: 'capture' });
    expect(planDelivery({ ...none, user: 'u', adminEmail: 'a@b.c' }, { smtpFrom: 'x@y' })).toEqual({
      via: 'capture',
    });
  });
});

describe('parseSmtpUrl', () => {
  it.each([
    ['smtp://mail.test', { host: 'mail.test', port: 587, secure: false }],
    ['smtp://mail.test:25', { host: 'mail.test', port: 25, secure: false }],
    ['smtps://mail.test:2465', { host: 'mail.test', port: 2465, secure: true }],
    ['smtp://[::1]:2525', { host: '::1', port: 2525, secure: false }],
  ])('%s', (url, target) => {
    expect(parseSmtpUrl(url)).toEqual(target);
  });

  it('percent-decodes the user and password', () => {
    expect(parseSmtpUrl('smtp://me%40acme.test:p%3Ass%2Fw@mail.test:587').auth).toEqual({
      user: 'me@acme.test',
      pass: 'p:ss/w',
    });
  });
});

describe('smtpTransportOptions', () => {
  it('bounds every wait, logs nothing and refuses file and URL content', () => {
    const options = smtpTransportOptions({
      host: 'mail.test',
      port: 465,
      secure: true,
      auth: { user: 'u', pass: 'p' },
    });
    expect(options).toMatchObject({
      host: 'mail.test',
      port: 465,
      secure: true,
      auth: { user: 'u', pass: 'p' },
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      logger: false,
      debug: false,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    // Opportunistic STARTTLS: neither forced nor ignored.
    expect(options.requireTLS).toBeUndefined();
    expect(options.ignoreTLS).toBeUndefined();
  });

  it('sends no credentials when there is no user', () => {
    expect(smtpTransportOptions({ host: 'h', port: 25, secure: false }).auth).toBeUndefined();
  });
});
