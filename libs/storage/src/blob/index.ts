import { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { AppConfig, ConfigError } from '@baseplate/config';
import { resolve } from 'node:path';
import type { BlobStore } from './blob-store';
import { FsBlobStore } from './fs-blob-store';
import { S3BlobStore } from './s3-blob-store';

export { InvalidBlobKeyError, versionEtag } from './blob-key';
export * from './blob-store';
export * from './fs-blob-store';
export * from './s3-blob-store';

/**
 * The S3 client for STORAGE_S3_*. Checksums only where S3 requires them: the SDK's default
 * (CRC32 on every request, aws-chunked trailers on streams) is refused by many S3-compatible
 * servers, and object integrity is not the SDK's job here.
 */
export function createS3Client(config: AppConfig): S3Client {
  const { storageS3AccessKeyId: accessKeyId, storageS3SecretAccessKey: secretAccessKey } = config;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const missing =
      accessKeyId === undefined ? 'STORAGE_S3_ACCESS_KEY_ID' : 'STORAGE_S3_SECRET_ACCESS_KEY';
    throw new ConfigError(missing, 'is required when the other S3 credential is set');
  }
  const options: S3ClientConfig = {
    region: config.storageS3Region,
    endpoint: config.storageS3Endpoint,
    forcePathStyle: config.storageS3ForcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  // Unset: the SDK's default chain (environment, profile, instance role).
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    options.credentials = { accessKeyId, secretAccessKey };
  }
  return new S3Client(options);
}

/** The blob store STORAGE_DRIVER selects; a misconfigured s3 driver fails at boot. */
export function createBlobStore(config: AppConfig): BlobStore {
  if (config.storageDriver === 's3') {
    if (!config.storageS3Bucket) {
      throw new ConfigError('STORAGE_S3_BUCKET', 'is required when STORAGE_DRIVER=s3');
    }
    return new S3BlobStore({ client: createS3Client(config), bucket: config.storageS3Bucket });
  }
  return new FsBlobStore(resolve(config.storageDir));
}
