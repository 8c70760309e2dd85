import { StorageError } from './errors';
import { validateBucketId, validateObjectName, validatePrefix } from './names';

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof StorageError ? e.status : -1;
  }
  return 200;
};

describe('validateObjectName', () => {
  it.each([
    'a.txt',
    'folder/sub/photo (1).png',
    'ünïcödé/日本.txt',
    "it's a file & more=1;x+y,z?.md",
    '.emptyFolderPlaceholder',
    'a/..b/c..',
    'x'.repeat(1024),
  ])('accepts %p', (name) => {
    expect(validateObjectName(name)).toBe(name);
  });

  it.each([
    ['../etc/passwd'],
    ['a/../../b'],
    ['a/./b'],
    ['..'],
    ['/etc/passwd'],
    ['a//b'],
    ['a/'],
    ['a\u0000b'],
    ['a\nb'],
    ['a\\..\\b'],
    ['x'.repeat(1025)],
    ['é'.repeat(513)],
    [''],
    [undefined],
    [42],
  ])('refuses %p with 400', (name) => {
    expect(refused(() => validateObjectName(name))).toBe(400);
  });
});

describe('validateBucketId', () => {
  it.each(['avatars', 'my bucket', 'a.b-c_d', "x'(y)"])('accepts %p', (id) => {
    expect(validateBucketId(id)).toBe(id);
  });
  it.each(['.', '..', 'a/b', '../x', 'a\\b', 'a\u0000', ' lead', '', 'x'.repeat(101), 'é'])(
    'refuses %p',
    (id) => {
      expect(refused(() => validateBucketId(id))).toBe(400);
    },
  );
});

describe('validatePrefix', () => {
  it('allows an empty prefix and drops outer slashes, but refuses dot segments', () => {
    expect(validatePrefix(undefined)).toBe('');
    expect(validatePrefix('/folder/')).toBe('folder');
    expect(refused(() => validatePrefix('a/../b'))).toBe(400);
  });
});
