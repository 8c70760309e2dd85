import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '@baseplate/config';

/**
 * Envelope for secrets at rest (project JWT secrets, role passwords, SMTP passwords):
 * AES-256-GCM under a key derived from MASTER_KEY. Format `v1.<iv>.<tag>.<ciphertext>`
 * (base64url), so a future key rotation can add `v2` beside it.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = deriveKey(masterKey, 'baseplate:secret-box:v1');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined)
      throw new Error('Unrecognised sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
