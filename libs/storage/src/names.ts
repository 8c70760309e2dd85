import { StorageErrors } from './errors';

const MAX_NAME_BYTES = 1024;
const MAX_BUCKET_ID = 100;
// storage-api's bucket alphabet (letters, digits, `_ ! - . * ' ( ) space & $ @ = ; : + , ?`).
const BUCKET_ID = /^[\w!\-.*'() &$@=;:+,?]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A bucket id as given (create) or taken from a path: storage-api's alphabet, never `.` or
 * `..`, at most 100 characters. It names a directory of the fs driver, so this is a
 * security check, not only a format rule.
 */
export function validateBucketId(id: unknown): string {
  if (typeof id !== 'string' || id === '') throw StorageErrors.invalidBucketName('empty');
  if (id.length > MAX_BUCKET_ID) throw StorageErrors.invalidBucketName('too long');
  if (!BUCKET_ID.test(id) || id === '.' || id === '..' || id.trim() !== id) {
    throw StorageErrors.invalidBucketName(
      `"${id.replace(CONTROL, '')}" has characters not allowed`,
    );
  }
  return id;
}

/**
 * An object name (the path after the bucket) exactly as sent: supabase-js removes leading,
 * trailing and repeated slashes itself, so any of those here (an absolute path, an empty
 * segment) is refused, as are `.` and `..` segments, control characters (NUL included),
 * backslashes, and names over 1024 bytes. Names never reach the disk (bytes are stored by
 * version id), but they appear in listings, URLs and policies, so the rules hold anyway.
 */
export function validateObjectName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw StorageErrors.invalidKey('missing');
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) throw StorageErrors.invalidKey('too long');
  if (CONTROL.test(name) || name.includes('\\')) {
    throw StorageErrors.invalidKey('control characters and backslashes are not allowed');
  }
  const segments = name.split('/');
  if (segments.some((s) => s === '')) {
    throw StorageErrors.invalidKey('no leading, trailing or repeated slashes');
  }
  if (segments.some((s) => s === '.' || s === '..')) {
    throw StorageErrors.invalidKey('"." and ".." segments are not allowed');
  }
  return name;
}

/** A listing prefix: like a name, but may be empty and keeps no trailing slash. */
export function validatePrefix(prefix: unknown): string {
  if (prefix === undefined || prefix === null || prefix === '') return '';
  if (typeof prefix !== 'string') throw StorageErrors.invalidRequest('prefix must be a string');
  const cleaned = prefix.replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '');
  return cleaned === '' ? '' : validateObjectName(cleaned);
}
