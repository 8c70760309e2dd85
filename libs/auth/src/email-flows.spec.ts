import { renderAuthEmail } from './emails';
import { VERIFY_TYPES } from './one-time';
import { globMatches, safeRedirect } from './redirects';

describe('safeRedirect', () => {
  const site = 'https://app.example.com';
  const list = [
    'http://localhost:3000/**',
    'https://*.preview.example.org/auth/*',
    'myapp://callback',
  ];

  it.each([
    ['https://app.example.com/welcome?x=1', 'https://app.example.com/welcome?x=1'],
    ['http://app.example.com/any', 'http://app.example.com/any'],
    ['http://localhost:3000/auth/callback', 'http://localhost:3000/auth/callback'],
    ['https://pr-12.preview.example.org/auth/done', 'https://pr-12.preview.example.org/auth/done'],
    ['myapp://callback', 'myapp://callback'],
  ])('honours %s', (candidate, expected) => {
    expect(safeRedirect(candidate, site, list)).toBe(expected);
  });

  it.each([
    ['https://evil.example.net/steal'],
    ['https://app.example.com.evil.net/'],
    ['https://app.example.com@evil.net/'],
    ['https://a.b.preview.example.org/auth/done'],
    ['https://pr-12.preview.example.org/auth/deeper/path'],
    ['http://localhost:3001/'],
    ['javascript:alert(1)'],
    ['https://app.example.com\\@evil.net'],
    ['/relative/path'],
    ['https://app.example.com/\nLocation: x'],
    // The raw string must not fool a glob: these hosts are 192.168.1.1, ::1 and evil.
    ['https://3232235777?.preview.example.org/auth/done'],
    ['https://[::1]?.preview.example.org/auth/x'],
    ['https://evil#.preview.example.org/auth/x'],
    ['https://evil.net?.preview.example.org/auth/x'],
    ['https://user@pr-1.preview.example.org/auth/x'],
    [''],
    [42],
    [undefined],
  ])('falls back to site_url for %p', (candidate) => {
    expect(safeRedirect(candidate, site, list)).toBe(site);
  });

  it('treats globs literally apart from *, ** and ?', () => {
    expect(globMatches('https://a.example.com/(x)+', 'https://a.example.com/(x)+')).toBe(true);
    expect(globMatches('https://a?example.com', 'https://a.example.com')).toBe(false);
    expect(globMatches('https://a?.example.com', 'https://ab.example.com')).toBe(true);
  });
});

describe('renderAuthEmail', () => {
  it('carries the link (escaped in HTML) and the code', () => {
    const link = 'https://api.example.com/projects/x/auth/v1/verify?token=abc&type=signup';
    const mail = renderAuthEmail('signup', { link, code: '012345' });
    expect(mail.subject).toBe('Confirm Your Signup');
    expect(mail.html).toContain(
      'href="https://api.example.com/projects/x/auth/v1/verify?token=abc&amp;type=signup"',
    );
    expect(mail.text).toContain(link);
    expect(mail.text).toContain('012345');
    expect(renderAuthEmail('recovery', { link, code: '1' }).subject).toBe('Reset Your Password');
  });
});

describe('VERIFY_TYPES', () => {
  it('lets the email code type consume sign-up, magic link and invite tokens only', () => {
    expect(VERIFY_TYPES.email).toEqual(['signup', 'magiclink', 'invite']);
    expect(VERIFY_TYPES.recovery).toEqual(['recovery']);
    expect(Object.hasOwn(VERIFY_TYPES, 'constructor')).toBe(false);
  });
});
