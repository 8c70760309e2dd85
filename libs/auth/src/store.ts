import type { PoolClient } from 'pg';
import { AuthErrors } from './errors';
import {
  AuthStatement,
  AuthStatements,
  runAuthStatement,
  USER_COLUMNS,
  type RotationResult,
  type UserWithPassword,
} from './statements';
import { newRefreshToken } from './tokens';
import type { UserRow } from './users';

type Queryable = Pick<PoolClient, 'query'>;

/**
 * SQL of the auth service over one project database. Every function runs inside the caller's
 * transaction, as `auth_admin`; every value is a parameter.
 */
export const AuthStore = {
  /** Runs one of AuthStatements (sign-in, rotation) in the caller's transaction. */
  run<T>(db: Queryable, statement: AuthStatement<T>): Promise<T> {
    return runAuthStatement(db, statement);
  },

  userByEmail(db: Queryable, email: string): Promise<UserWithPassword | undefined> {
    return runAuthStatement(db, AuthStatements.userByEmail(email));
  },

  async userById(db: Queryable, id: string): Promise<UserRow | undefined> {
    const { rows } = await db.query<UserRow>(
      `SELECT ${USER_COLUMNS} FROM auth.users WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    );
    return rows[0];
  },

  /**
   * A new user (without a password when signed up by email code or invited); an email already
   * registered is 422 `user_already_exists`.
   */
  async createUser(
    db: Queryable,
    input: {
      email: string;
      passwordHash: string | null;
      userMetadata: object;
      confirmed: boolean;
      invited?: boolean;
    },
  ): Promise<UserRow> {
    const { rows } = await db.query<UserRow>(
      `INSERT INTO auth.users (email, encrypted_password, raw_user_meta_data, raw_app_meta_data,
                               email_confirmed_at, invited_at)
       VALUES ($1, $2, $3, '{"provider": "email", "providers": ["email"]}',
               CASE WHEN $4 THEN now() END, CASE WHEN $5 THEN now() END)
       ON CONFLICT DO NOTHING
       RETURNING ${USER_COLUMNS}`,
      [
        input.email,
        input.passwordHash,
        JSON.stringify(input.userMetadata),
        input.confirmed,
        input.invited === true,
      ],
    );
    if (!rows[0]) throw AuthErrors.userAlreadyExists();
    return rows[0];
  },

  async updateUser(
    db: Queryable,
    id: string,
    change: { passwordHash?: string; userMetadata?: object; signedIn?: boolean },
  ): Promise<UserRow> {
    const { rows } = await db.query<UserRow>(
      `UPDATE auth.users SET
         encrypted_password = coalesce($2, encrypted_password),
         raw_user_meta_data = raw_user_meta_data || coalesce($3::jsonb, '{}'),
         last_sign_in_at = CASE WHEN $4 THEN now() ELSE last_sign_in_at END,
         updated_at = now()
       WHERE id = $1
       RETURNING ${USER_COLUMNS}`,
      [
        id,
        change.passwordHash ?? null,
        change.userMetadata === undefined ? null : JSON.stringify(change.userMetadata),
        change.signedIn === true,
      ],
    );
    if (!rows[0]) throw AuthErrors.userNotFound();
    return rows[0];
  },

  /**
   * Marks the address confirmed (a followed confirmation, invite, magic or recovery link). The
   * first confirmation also sets the password to the one the token carries (the sign-up's, or
   * none): a password chosen before the address was proven, by whoever pre-registered it, does
   * not survive the real owner's confirmation.
   */
  async confirmEmail(db: Queryable, id: string, passwordHash: string | null): Promise<UserRow> {
    const { rows } = await db.query<UserRow>(
      `UPDATE auth.users SET
              encrypted_password = CASE WHEN email_confirmed_at IS NULL THEN $2
                                        ELSE encrypted_password END,
              email_confirmed_at = coalesce(email_confirmed_at, now()),
              updated_at = now()
        WHERE id = $1 AND deleted_at IS NULL
        RETURNING ${USER_COLUMNS}`,
      [id, passwordHash],
    );
    if (!rows[0]) throw AuthErrors.userNotFound();
    return rows[0];
  },

  /**
   * An email change: `pending` records the new address until its link is followed; otherwise
   * the address changes now (confirmed, as the link would have done). 422 `email_exists` when
   * another user has it.
   */
  async changeEmail(
    db: Queryable,
    id: string,
    email: string,
    mode: 'pending' | 'now',
  ): Promise<UserRow> {
    const taken = await db.query('SELECT 1 FROM auth.users WHERE lower(email) = $1 AND id <> $2', [
      email,
      id,
    ]);
    if (taken.rows.length > 0) throw AuthErrors.emailExists();
    const { rows } = await db.query<UserRow>(
      mode === 'pending'
        ? `UPDATE auth.users SET email_change = $2, updated_at = now()
            WHERE id = $1 AND deleted_at IS NULL RETURNING ${USER_COLUMNS}`
        : `UPDATE auth.users SET email = $2, email_change = NULL, updated_at = now(),
                  email_confirmed_at = coalesce(email_confirmed_at, now())
            WHERE id = $1 AND deleted_at IS NULL RETURNING ${USER_COLUMNS}`,
      [id, email],
    );
    if (!rows[0]) throw AuthErrors.userNotFound();
    return rows[0];
  },

  /** A new session and its first refresh token (returned raw, stored hashed). */
  async createSession(
    db: Queryable,
    userId: string,
    meta: { userAgent?: string; ip?: string },
  ): Promise<{ sessionId: string; refreshToken: string }> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth.sessions (user_id, user_agent, ip) VALUES ($1, $2, $3::inet) RETURNING id`,
      [userId, meta.userAgent ?? null, meta.ip ?? null],
    );
    const sessionId = rows[0]!.id;
    const refreshToken = await insertRefreshToken(db, sessionId, userId, null);
    return { sessionId, refreshToken };
  },

  async sessionExists(db: Queryable, sessionId: string, userId: string): Promise<boolean> {
    const { rows } = await db.query('SELECT 1 FROM auth.sessions WHERE id = $1 AND user_id = $2', [
      sessionId,
      userId,
    ]);
    return rows.length > 0;
  },

  /** See AuthStatements.rotateRefreshToken. */
  rotateRefreshToken(
    db: Queryable,
    token: string,
    audit?: { ip?: string },
  ): Promise<RotationResult> {
    return runAuthStatement(db, AuthStatements.rotateRefreshToken(token, audit));
  },

  /** `/logout?scope=`: this session, every session of the user, or every other one. */
  async endSessions(
    db: Queryable,
    userId: string,
    sessionId: string,
    scope: 'global' | 'local' | 'others',
  ): Promise<void> {
    const condition =
      scope === 'global' ? '' : scope === 'local' ? ' AND id = $2' : ' AND id <> $2';
    await db.query(
      `DELETE FROM auth.sessions WHERE user_id = $1${condition}`,
      scope === 'global' ? [userId] : [userId, sessionId],
    );
  },

  /** A page of users, newest first, and the total (admin list). */
  async listUsers(
    db: Queryable,
    page: number,
    perPage: number,
  ): Promise<{ users: UserRow[]; total: number }> {
    const { rows } = await db.query<UserRow & { total: string }>(
      `SELECT ${USER_COLUMNS}, count(*) OVER () AS total FROM auth.users
        WHERE deleted_at IS NULL ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`,
      [perPage, (page - 1) * perPage],
    );
    let total = rows[0] ? Number(rows[0].total) : 0;
    if (!rows[0] && page > 1) {
      const count = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM auth.users WHERE deleted_at IS NULL',
      );
      total = Number(count.rows[0]!.n);
    }
    return { users: rows.map(({ total: _total, ...user }) => user as UserRow), total };
  },

  /** Admin changes: any of email, password, confirmation, both metadata, a ban. */
  async adminUpdateUser(
    db: Queryable,
    id: string,
    change: {
      email?: string;
      passwordHash?: string;
      confirm?: boolean;
      userMetadata?: object;
      appMetadata?: object;
      bannedUntil?: Date | null;
    },
  ): Promise<UserRow> {
    const { rows } = await db.query<UserRow>(
      `UPDATE auth.users SET
         email = coalesce($2, email),
         encrypted_password = coalesce($3, encrypted_password),
         email_confirmed_at = CASE WHEN $4 THEN coalesce(email_confirmed_at, now()) ELSE email_confirmed_at END,
         raw_user_meta_data = raw_user_meta_data || coalesce($5::jsonb, '{}'),
         raw_app_meta_data = raw_app_meta_data || coalesce($6::jsonb, '{}'),
         banned_until = CASE WHEN $7 THEN $8::timestamptz ELSE banned_until END,
         updated_at = now()
       WHERE id = $1 AND deleted_at IS NULL
       RETURNING ${USER_COLUMNS}`,
      [
        id,
        change.email ?? null,
        change.passwordHash ?? null,
        change.confirm === true,
        change.userMetadata === undefined ? null : JSON.stringify(change.userMetadata),
        change.appMetadata === undefined ? null : JSON.stringify(change.appMetadata),
        change.bannedUntil !== undefined,
        change.bannedUntil ?? null,
      ],
    );
    if (!rows[0]) throw AuthErrors.userNotFound();
    return rows[0];
  },

  /** Deletes a user (its sessions go with it); soft: keeps the row, marked deleted. */
  async deleteUser(db: Queryable, id: string, soft: boolean): Promise<void> {
    const { rowCount } = soft
      ? await db.query(
          `UPDATE auth.users SET deleted_at = now(), email = NULL, encrypted_password = NULL
            WHERE id = $1 AND deleted_at IS NULL`,
          [id],
        )
      : await db.query('DELETE FROM auth.users WHERE id = $1', [id]);
    if (!rowCount) throw AuthErrors.userNotFound();
    if (soft) await db.query('DELETE FROM auth.sessions WHERE user_id = $1', [id]);
  },

  async audit(db: Queryable, action: string, userId: string, ip?: string): Promise<void> {
    await db.query('INSERT INTO auth.audit_log_entries (payload, ip_address) VALUES ($1, $2)', [
      JSON.stringify({ action, actor_id: userId }),
      ip ?? null,
    ]);
  },
};

async function insertRefreshToken(
  db: Queryable,
  sessionId: string,
  userId: string,
  parentHash: string | null,
): Promise<string> {
  const { token, hash } = newRefreshToken();
  await db.query(
    `INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id, parent_hash)
     VALUES ($1, $2, $3, $4)`,
    [hash, sessionId, userId, parentHash],
  );
  return token;
}
