import { describeDatabaseUrl, describeRedisUrl } from './redact';

describe('describeDatabaseUrl', () => {
  it('keeps host, port and database and drops the credentials', () => {
    const text = describeDatabaseUrl('postgres://postgres:s3cret@127.0.0.1:54329/baseplate');
    expect(text).toBe('127.0.0.1:54329/baseplate');
    expect(text).not.toContain('s3cret');
  });

  it('fills in the default port and database', () => {
    expect(describeDatabaseUrl('postgresql://u:p@db.example')).toBe('db.example:5432/postgres');
  });

  it('never echoes a URL it cannot parse (it may still hold a password)', () => {
    expect(describeDatabaseUrl('not a url :secret@')).toBe('(unparseable URL)');
  });
});

describe('describeRedisUrl', () => {
  it('drops the password of an authenticated URL', () => {
    expect(describeRedisUrl('rediss://:pw@cache.internal:6380/0')).toBe('cache.internal:6380');
    expect(describeRedisUrl('redis://127.0.0.1')).toBe('127.0.0.1:6379');
  });
});
