import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
import { APP_CONFIG, AppConfig, platformJwtSecret } from '@baseplate/config';

const ISSUER = 'baseplate-control-plane';
const AUDIENCE = 'baseplate-platform';

/** Login tokens of the management API: HS256 under a key derived from MASTER_KEY. */
@Injectable()
export class PlatformTokenService {
  private readonly secret: Uint8Array;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.secret = platformJwtSecret(config);
  }

  get ttlSeconds(): number {
    return this.config.platformTokenTtlS;
  }

  sign(accountId: string): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(accountId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.config.platformTokenTtlS}s`)
      .sign(this.secret);
  }

  /** The account id, or null for anything not issued by us or expired. */
  async verify(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      return typeof payload.sub === 'string' ? payload.sub : null;
    } catch {
      return null;
    }
  }
}
