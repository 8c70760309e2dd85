import type { PoolClient } from 'pg';
import { AuthErrors } from './errors';
import { hashToken, newRefreshToken } from './tokens';
import type { UserRow } from './users';

type Queryable = Pick<PoolClient, 'query'>;

/** A refresh token presented again within this window answers with a new sibling (tabs). */
export const REFRESH_REUSE_GRACE_S = 10;

export const USER_COLUMNS = `id, aud, role, email, phone, email_confirmed_at, last_sign_in_at,
  raw_app_meta_data, raw_user_meta_data, is_anonymous, created_at, updated_at, banned_until,
  email_change, confirmation_sent_at, recovery_sent_at, email_change_sent_at, invited_at`;

export interface UserWithPassword extends UserRow {
  encrypted_password: string | null;
}

/**
 * One statement of the auth service that decides everything itself (no look at its rows
 * before it commits), and how to read its rows (parsed as client.query parses them). The
 * data plane runs it in one round trip with the settings, as its own transaction; tests run
 * it with AuthStore.run on a client.
 */
export interface AuthStatement<T> {
  text: string;
  values: unknown[];
  read(rows: Record<string, unknown>[]): T;
}

export type RotationResult =
  { userId: string; sessionId: string; refreshToken: string; user: UserRow } | { reused: true };

const qualified = (alias: string): string =>
  USER_COLUMNS.split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');

const USER_BY_EMAIL_SQL = `SELECT ${USER_COLUMNS}, encrypted_password FROM auth.users
  WHERE lower(email) = $1 AND deleted_at IS NULL`;

// The writes of a password sign-in in one statement: a session, its first refresh token
// (stored hashed), the user's last sign-in (and the argon2id hash replacing a bcrypt one),
// the audit entry. The sessions' and tokens' foreign keys are checked at the statement's end,
// when the rows of the other parts exist.
const SIGN_IN_SQL = `WITH session AS (
  INSERT INTO auth.sessions (user_id, user_agent, ip) VALUES ($1::uuid, $2, $3::text::inet)
  RETURNING id
), token AS (
  INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id)
  SELECT $4, id, $1 FROM session
), signed_in AS (
  UPDATE auth.users SET
    encrypted_password = coalesce($5, encrypted_password),
    last_sign_in_at = now(),
    updated_at = now()
  WHERE id = $1
  RETURNING ${USER_COLUMNS}
), logged AS (
  INSERT INTO auth.audit_log_entries (payload, ip_address)
  VALUES (jsonb_build_object('action', 'login', 'actor_id', $1::text), $3::text)
)
SELECT session.id AS session_id, ${qualified('signed_in')} FROM session, signed_in`;

// Rotation, the hot path of every open tab: lock the token, then either revoke it, touch its
// session, insert the child and log it, or (reused after the grace window) end its session.
// A token of a deleted user rotates into nothing. All parts see one snapshot; their targets
// never overlap.
const ROTATE_SQL = `WITH old AS (
  SELECT session_id, user_id, revoked,
         updated_at > now() - make_interval(secs => $2) AS in_grace
    FROM auth.refresh_tokens WHERE token_hash = $1 FOR UPDATE
), ok AS (
  SELECT * FROM old
   WHERE (NOT revoked OR in_grace)
     AND EXISTS (SELECT 1 FROM auth.users WHERE id = old.user_id AND deleted_at IS NULL)
), revoke AS (
  UPDATE auth.refresh_tokens SET revoked = true, updated_at = now()
   WHERE token_hash = $1 AND EXISTS (SELECT 1 FROM ok WHERE NOT revoked)
), touch AS (
  UPDATE auth.sessions SET updated_at = now() WHERE id = (SELECT session_id FROM ok)
), child AS (
  INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id, parent_hash)
  SELECT $3, session_id, user_id, $1 FROM ok
), logged AS (
  INSERT INTO auth.audit_log_entries (payload, ip_address)
  SELECT jsonb_build_object('action', 'token_refreshed', 'actor_id', user_id), $4
    FROM ok WHERE $5
), ended AS (
  DELETE FROM auth.sessions
   WHERE id = (SELECT session_id FROM old WHERE revoked AND NOT in_grace)
)
SELECT old.session_id, old.user_id, (old.revoked AND NOT old.in_grace) AS reused,
       ${qualified('u')}
  FROM old LEFT JOIN auth.users u ON u.id = old.user_id AND u.deleted_at IS NULL`;

export const AuthStatements = {
  userByEmail(email: string): AuthStatement<UserWithPassword | undefined> {
    return {
      text: USER_BY_EMAIL_SQL,
      values: [email],
      read: (rows) => rows[0] as unknown as UserWithPassword | undefined,
    };
  },

  /**
   * A password sign-in's writes (the password is checked already): a session and its refresh
   * token (returned raw, stored hashed), the last sign-in, the audit entry; `rehash` replaces
   * the stored hash (bcrypt moving to argon2id).
   */
  signIn(input: {
    userId: string;
    userAgent?: string;
    ip?: string;
    rehash?: string;
  }): AuthStatement<{ user: UserRow; session: { sessionId: string; refreshToken: string } }> {
    const { token, hash } = newRefreshToken();
    return {
      text: SIGN_IN_SQL,
      values: [input.userId, input.userAgent ?? null, input.ip ?? null, hash, input.rehash ?? null],
      read(rows) {
        // The user was deleted since it was read: its session went with it (foreign key).
        if (!rows[0]) throw AuthErrors.userNotFound();
        const { session_id: sessionId, ...user } = rows[0];
        return {
          user: user as unknown as UserRow,
          session: { sessionId: sessionId as string, refreshToken: token },
        };
      },
    };
  },

  /**
   * Rotation: a live token is revoked and replaced by a child. A revoked one is accepted
   * again only within the grace window (answering with a new sibling); after it, its whole
   * session is revoked, as GoTrue does against token theft: that answer is `reused`, not an
   * exception, so the caller reports `refresh_token_already_used` once the revocation is
   * committed. An unknown token, or one of a deleted user (nothing changes then), is
   * `refresh_token_not_found`.
   */
  rotateRefreshToken(token: string, audit?: { ip?: string }): AuthStatement<RotationResult> {
    const hash = hashToken(token);
    const child = newRefreshToken();
    return {
      text: ROTATE_SQL,
      values: [hash, REFRESH_REUSE_GRACE_S, child.hash, audit?.ip ?? null, audit !== undefined],
      read(rows) {
        const row = rows[0];
        if (!row) throw AuthErrors.refreshTokenNotFound();
        if (row.reused) return { reused: true };
        if (!row.id) throw AuthErrors.refreshTokenNotFound();
        const { session_id: sessionId, user_id: userId, reused: _reused, ...user } = row;
        return {
          userId: userId as string,
          sessionId: sessionId as string,
          refreshToken: child.token,
          user: user as unknown as UserRow,
        };
      },
    };
  },
};

/** Runs an AuthStatement on a client (inside the caller's transaction). */
export async function runAuthStatement<T>(db: Queryable, statement: AuthStatement<T>): Promise<T> {
  const { rows } = await db.query<Record<string, unknown>>(statement.text, statement.values);
  return statement.read(rows);
}
