import { ConfigError, describeConfig, loadConfig } from './load-config';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/platform',
  MASTER_KEY: 'a'.repeat(64),
};

describe('loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const config = loadConfig(base);
    expect(config.controlPlanePort).toBe(3000);
    expect(config.dataPlanePort).toBe(8000);
    expect(config.masterKey).toHaveLength(32);
    expect(Object.isFrozen(config)).toBe(true);
    expect(config.authenticatorPassword).toBeUndefined();
  });

  it('names the missing variable in one line', () => {
    expect(() => loadConfig({ MASTER_KEY: base.MASTER_KEY })).toThrow(
      /^Invalid configuration: DATABASE_URL is required/,
    );
  });

  it.each([
    ['CONTROL_PLANE_PORT', 'abc', /CONTROL_PLANE_PORT must be an integer/],
    ['CONTROL_PLANE_PORT', '70000', /CONTROL_PLANE_PORT must be between 0 and 65535/],
    ['MASTER_KEY', 'short', /MASTER_KEY must be 32 bytes/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must use postgres:\/\//],
    ['PUBLIC_URL', 'not a url', /PUBLIC_URL must be a URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['PROJECT_TEMPLATE_DB', 'Bad-Name', /PROJECT_TEMPLATE_DB must be lowercase/],
    ['SMTP_URL', 'http://mail.example.com', /SMTP_URL must use smtp:\/\/ or smtps:\/\//],
    ['SMTP_URL', 'smtp:nohost', /SMTP_URL must name a host/],
    ['SMTP_FROM', 'nobody', /SMTP_FROM must be one address/],
    ['SMTP_FROM', 'a@b.c\r\nBcc: x@y.z', /SMTP_FROM must be one address/],
    ['CAPTURED_EMAILS_KEEP', '0', /CAPTURED_EMAILS_KEEP must be between 1 and/],
  ])('rejects %s=%s', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ ...base, [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('accepts a base64 master key and strips a trailing slash from URLs', () => {
    const config = loadConfig({
      ...base,
      MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      PUBLIC_URL: 'https://api.example.com/',
    });
    expect(config.masterKey.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.publicUrl).toBe('https://api.example.com');
  });

  it('has no platform SMTP by default: auth emails are captured, 200 kept per project', () => {
    const config = loadConfig(base);
    expect(config.smtpUrl).toBeUndefined();
    expect(config.smtpFrom).toBe('Baseplate <noreply@localhost>');
    expect(config.capturedEmailsKeep).toBe(200);
  });

  it('accepts smtp:// and smtps:// URLs with credentials', () => {
    for (const smtp of ['smtp://u:p@mail.example.com:587', 'smtps://u:p@mail.example.com']) {
      expect(loadConfig({ ...base, SMTP_URL: smtp }).smtpUrl).toBe(smtp);
    }
  });

  it('masks sensitive values when described', () => {
    const described = describeConfig(
      loadConfig({
        ...base,
        AUTHENTICATOR_PASSWORD: 'hunter2',
        SMTP_URL: 'smtp://mailer:smtp-secret@mail.example.com:587',
      }),
    );
    expect(described.DATABASE_URL).toBe('***');
    expect(described.MASTER_KEY).toBe('***');
    expect(described.AUTHENTICATOR_PASSWORD).toBe('***');
    expect(described.SMTP_URL).toBe('***');
    expect(JSON.stringify(described)).not.toContain('hunter2');
    expect(JSON.stringify(described)).not.toContain('smtp-secret');
    expect(described.CONTROL_PLANE_PORT).toBe('3000');
  });
});
