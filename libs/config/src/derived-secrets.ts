import { hkdfSync } from 'node:crypto';
import { AppConfig } from './env-schema';

/** Purpose-bound subkey of the master key (HKDF-SHA256): one master key, many independent secrets. */
export function deriveKey(masterKey: Buffer, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, length));
}

/** Password of the `authenticator` role: AUTHENTICATOR_PASSWORD, else derived from MASTER_KEY. */
export const authenticatorPassword = (config: AppConfig): string =>
  config.authenticatorPassword ??
  deriveKey(config.masterKey, 'baseplate:authenticator-password').toString('base64url');

/** HS256 secret of control-plane login tokens. */
export const platformJwtSecret = (config: AppConfig): Uint8Array =>
  deriveKey(config.masterKey, 'baseplate:platform-jwt');
