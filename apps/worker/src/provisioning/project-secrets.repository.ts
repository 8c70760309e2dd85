import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@baseplate/config';
import { randomSecret, SecretBox } from '@baseplate/security';

/** New project secrets, sealed with MASTER_KEY before they leave this class. */
@Injectable()
export class ProjectSecretsRepository {
  private readonly box: SecretBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new SecretBox(config.masterKey);
  }

  /** 32 random bytes: 43 base64url characters, above HS256's 32-character minimum. */
  sealNewJwtSecret(): string {
    return this.box.seal(randomSecret(32));
  }

  sealNewPassword(): string {
    return this.box.seal(randomSecret(32));
  }

  open(sealed: string): string {
    return this.box.open(sealed);
  }
}
