import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { AccessToken, Account } from '@baseplate/control-db';
import { Errors } from '@baseplate/errors';
import {
  dummyPasswordHash,
  generatePersonalToken,
  hashPassword,
  PERSONAL_TOKEN_PREFIX,
  sha256Hex,
  verifyPassword,
} from '@baseplate/security';
import { AuthenticatedAccount } from '../common/current-account.decorator';
import { PlatformTokenService } from './platform-token.service';

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    @InjectRepository(AccessToken) private readonly tokens: Repository<AccessToken>,
    private readonly platformTokens: PlatformTokenService,
  ) {}

  async signup(email: string, password: string): Promise<AuthenticatedAccount> {
    const normalized = email.trim().toLowerCase();
    const passwordHash = await hashPassword(password);
    try {
      const saved = await this.accounts.save(
        this.accounts.create({ email: normalized, passwordHash }),
      );
      return { id: saved.id, email: saved.email };
    } catch (e) {
      if (
        e instanceof QueryFailedError &&
        (e.driverError as { code?: string }).code === UNIQUE_VIOLATION
      ) {
        throw Errors.emailTaken();
      }
      throw e;
    }
  }

  /** Same work and the same answer whether the email is unknown or the password wrong. */
  async verifyCredentials(email: string, password: string): Promise<AuthenticatedAccount> {
    const account = await this.accounts.findOneBy({ email: email.trim().toLowerCase() });
    const ok = await verifyPassword(account?.passwordHash ?? (await dummyPasswordHash()), password);
    if (!account || !ok) throw Errors.invalidCredentials();
    return { id: account.id, email: account.email };
  }

  async login(
    account: AuthenticatedAccount,
  ): Promise<{ access_token: string; token_type: 'bearer'; expires_in: number }> {
    return {
      access_token: await this.platformTokens.sign(account.id),
      token_type: 'bearer',
      expires_in: this.platformTokens.ttlSeconds,
    };
  }

  /** Resolves a Bearer value: a personal token (looked up by digest) or a login JWT. */
  async authenticate(token: string): Promise<AuthenticatedAccount | null> {
    let accountId: string | null;
    if (token.startsWith(PERSONAL_TOKEN_PREFIX)) {
      const found = await this.tokens.findOneBy({ tokenHash: sha256Hex(token) });
      if (!found) return null;
      await this.tokens.update({ id: found.id }, { lastUsedAt: new Date() });
      accountId = found.accountId;
    } else {
      accountId = await this.platformTokens.verify(token);
    }
    if (!accountId) return null;
    const account = await this.accounts.findOneBy({ id: accountId });
    return account ? { id: account.id, email: account.email } : null;
  }

  async createAccessToken(
    accountId: string,
    name: string,
  ): Promise<{ id: string; name: string; token: string }> {
    const token = generatePersonalToken();
    const saved = await this.tokens.save(
      this.tokens.create({ accountId, name, tokenHash: sha256Hex(token) }),
    );
    return { id: saved.id, name: saved.name, token };
  }

  async listAccessTokens(accountId: string) {
    const rows = await this.tokens.find({ where: { accountId }, order: { createdAt: 'ASC' } });
    return rows.map((t) => ({
      id: t.id,
      name: t.name,
      created_at: t.createdAt.toISOString(),
      last_used_at: t.lastUsedAt?.toISOString() ?? null,
    }));
  }

  async deleteAccessToken(accountId: string, id: string): Promise<void> {
    const { affected } = await this.tokens.delete({ id, accountId });
    if (!affected) throw Errors.notFound(`Access token ${id} not found`);
  }
}
