/**
 * Errors in storage-api's shape, which storage-js reads: `{statusCode: "<status>", error,
 * message}` plus a `code` where storage-api sends one (`exists()` treats a 404 as "no" only
 * when `code` is absent or `NoSuchKey`).
 */
export class StorageError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }

  toJSON(): Record<string, unknown> {
    return {
      statusCode: String(this.status),
      error: this.error,
      message: this.message,
      ...(this.code ? { code: this.code } : {}),
    };
  }
}

export const StorageErrors = {
  objectNotFound: () => new StorageError(404, 'not_found', 'Object not found', 'NoSuchKey'),
  bucketNotFound: () =>
    new StorageError(404, 'Bucket not found', 'Bucket not found', 'NoSuchBucket'),
  duplicate: () => new StorageError(409, 'Duplicate', 'The resource already exists', 'Duplicate'),
  bucketNotEmpty: () =>
    new StorageError(
      409,
      'InvalidRequest',
      'The bucket you tried to delete is not empty',
      'BucketNotEmpty',
    ),
  tooLarge: () =>
    new StorageError(
      413,
      'Payload too large',
      'The object exceeded the maximum allowed size',
      'EntityTooLarge',
    ),
  mimeNotAllowed: (type: string) =>
    new StorageError(
      415,
      'invalid_mime_type',
      `mime type ${type} is not supported`,
      'InvalidMimeType',
    ),
  invalidKey: (why: string) =>
    new StorageError(400, 'Invalid Input', `Invalid key: ${why}`, 'InvalidKey'),
  invalidBucketName: (why: string) =>
    new StorageError(400, 'Invalid Input', `Invalid bucket name: ${why}`, 'InvalidBucketName'),
  rangeNotSatisfiable: () =>
    new StorageError(416, 'InvalidRange', 'The requested range is not satisfiable'),
  invalidRequest: (message: string) =>
    new StorageError(400, 'Invalid Input', message, 'InvalidRequest'),
  invalidSignature: (message = 'Invalid signature') =>
    new StorageError(400, 'InvalidJWT', message, 'InvalidSignature'),
  /** A write the project's policies refused (storage-api answers 403 with the SQL message). */
  unauthorized: (message = 'new row violates row-level security policy') =>
    new StorageError(403, 'Unauthorized', message, 'AccessDenied'),
};
