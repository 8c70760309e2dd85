import { randomBytes, randomInt } from 'node:crypto';
import type { PoolClient } from 'pg';
import { constantTimeEqual } from '@baseplate/security';
import { hashToken } from './tokens';

type Queryable = Pick<PoolClient, 'query'>;

/** What an emailed one-time token proves (the kind of link it came in). */
export type EmailKind = 'signup' | 'invite' | 'recovery' | 'magiclink' | 'email_change';

/** Links and codes live an hour (Supabase's default `mailer_otp_exp`). */
export const ONE_TIME_TOKEN_TTL_S = 3600;
/** Wrong codes tried against an address before its live codes stop working. */
export const MAX_CODE_ATTEMPTS = 5;

/**
 * `type` of /verify → the token kinds it may consume. `email` is the six-digit code of
 * signInWithOtp (a sign-up confirmation for a new user, a magic link for a known one).
 */
export const VERIFY_TYPES: Readonly<Record<string, readonly EmailKind[]>> = {
  signup: ['signup'],
  invite: ['invite'],
  recovery: ['recovery'],
  magiclink: ['magiclink', 'signup'],
  email_change: ['email_change'],
  email: ['signup', 'magiclink', 'invite'],
};

/** The user's "sent at" column each kind stamps (GoTrue's fields of the user object). */
const SENT_AT: Record<EmailKind, string> = {
  signup: 'confirmation_sent_at',
  invite: 'invited_at',
  recovery: 'recovery_sent_at',
  magiclink: 'recovery_sent_at',
  email_change: 'email_change_sent_at',
};

export interface IssuedOneTimeToken {
  /** Goes into the link (`token=`) and is `hashed_token` of generate_link; stored as SHA-256. */
  token: string;
  /** The six-digit code of the same email; stored as SHA-256. */
  code: string;
}

export interface ConsumedToken {
  userId: string;
  kind: EmailKind;
  /** The address the token was sent to (the new address, for email_change). */
  email: string;
  /** The password of the sign-up this token confirms (null: none, e.g. a magic link). */
  passwordHash: string | null;
}

/** One-time tokens of the email flows. Every function runs in the caller's transaction. */
export const OneTimeTokens = {
  /** A new token of `kind` for the user, replacing any earlier one of that kind. */
  async issue(
    db: Queryable,
    input: { userId: string; kind: EmailKind; email: string; passwordHash?: string | null },
  ): Promise<IssuedOneTimeToken> {
    const token = randomBytes(24).toString('base64url');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    // The column name comes from the fixed map above, never from input.
    await db.query(
      `WITH earlier AS (
         DELETE FROM auth.one_time_tokens WHERE user_id = $1 AND kind = $2
       ), stamp AS (
         UPDATE auth.users SET ${SENT_AT[input.kind]} = now() WHERE id = $1
       )
       INSERT INTO auth.one_time_tokens (user_id, kind, token_hash, code_hash, email, expires_at,
                                         password_hash)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7)`,
      [
        input.userId,
        input.kind,
        hashToken(token),
        hashToken(code),
        input.email,
        ONE_TIME_TOKEN_TTL_S,
        input.passwordHash ?? null,
      ],
    );
    return { token, code };
  },

  /** Uses up the token of a link (or a `token_hash`); undefined when unknown, used or expired. */
  async consumeLink(
    db: Queryable,
    token: string,
    kinds: readonly EmailKind[],
  ): Promise<ConsumedToken | undefined> {
    const { rows } = await db.query<{
      user_id: string;
      kind: EmailKind;
      email: string;
      password_hash: string | null;
      usable: boolean;
    }>(
      `DELETE FROM auth.one_time_tokens WHERE token_hash = $1 AND kind = ANY($2)
       RETURNING user_id, kind, email, password_hash,
                 expires_at > now() AND failed_attempts < $3 AS usable`,
      [hashToken(token), kinds, MAX_CODE_ATTEMPTS],
    );
    const row = rows[0];
    return row?.usable
      ? { userId: row.user_id, kind: row.kind, email: row.email, passwordHash: row.password_hash }
      : undefined;
  },

  /**
   * Uses up the live token whose code matches, among those sent to `email`. A wrong code counts
   * against every live token of the address, so the million codes cannot be walked: the caller
   * must commit even when this returns undefined.
   */
  async consumeCode(
    db: Queryable,
    email: string,
    code: string,
    kinds: readonly EmailKind[],
  ): Promise<ConsumedToken | undefined> {
    const { rows } = await db.query<{
      id: string;
      user_id: string;
      kind: EmailKind;
      email: string;
      code_hash: string | null;
      password_hash: string | null;
    }>(
      `SELECT id, user_id, kind, email, code_hash, password_hash FROM auth.one_time_tokens
        WHERE lower(email) = $1 AND kind = ANY($2) AND expires_at > now() AND failed_attempts < $3
        ORDER BY created_at DESC FOR UPDATE`,
      [email, kinds, MAX_CODE_ATTEMPTS],
    );
    const presented = hashToken(code);
    const match = rows.find(
      (r) => r.code_hash !== null && constantTimeEqual(r.code_hash, presented),
    );
    if (match) {
      await db.query('DELETE FROM auth.one_time_tokens WHERE id = $1', [match.id]);
      return {
        userId: match.user_id,
        kind: match.kind,
        email: match.email,
        passwordHash: match.password_hash,
      };
    }
    if (rows.length > 0) {
      await db.query(
        'UPDATE auth.one_time_tokens SET failed_attempts = failed_attempts + 1 WHERE id = ANY($1)',
        [rows.map((r) => r.id)],
      );
    }
    return undefined;
  },
};
