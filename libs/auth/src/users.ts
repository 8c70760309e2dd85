/** A row of auth.users as the auth service reads it. */
export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  phone: string | null;
  email_confirmed_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  is_anonymous: boolean;
  created_at: Date;
  updated_at: Date;
  banned_until?: Date | null;
  /** The pending new address of an email change. */
  email_change?: string | null;
  confirmation_sent_at?: Date | null;
  recovery_sent_at?: Date | null;
  email_change_sent_at?: Date | null;
  invited_at?: Date | null;
}

/** The user object of GoTrue's responses (wire reference §1.6). */
export interface AuthUser {
  id: string;
  aud: string;
  role: string;
  email: string;
  phone: string;
  email_confirmed_at: string | null;
  confirmed_at: string | null;
  last_sign_in_at: string | null;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  identities: unknown[];
  created_at: string;
  updated_at: string;
  is_anonymous: boolean;
  confirmation_sent_at?: string;
  recovery_sent_at?: string;
  email_change_sent_at?: string;
  new_email?: string;
  invited_at?: string;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** GoTrue omits the optional fields that are unset. */
const optional = (
  key: 'confirmation_sent_at' | 'recovery_sent_at' | 'email_change_sent_at' | 'invited_at',
  d: Date | null | undefined,
): Partial<AuthUser> => (d ? { [key]: d.toISOString() } : {});

export function toAuthUser(row: UserRow): AuthUser {
  return {
    id: row.id,
    aud: row.aud,
    role: row.role,
    email: row.email ?? '',
    phone: row.phone ?? '',
    email_confirmed_at: iso(row.email_confirmed_at),
    confirmed_at: iso(row.email_confirmed_at),
    last_sign_in_at: iso(row.last_sign_in_at),
    app_metadata: { provider: 'email', providers: ['email'], ...row.raw_app_meta_data },
    user_metadata: row.raw_user_meta_data,
    identities: [],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    is_anonymous: row.is_anonymous,
    ...optional('confirmation_sent_at', row.confirmation_sent_at),
    ...optional('recovery_sent_at', row.recovery_sent_at),
    ...optional('email_change_sent_at', row.email_change_sent_at),
    ...(row.email_change ? { new_email: row.email_change } : {}),
    ...optional('invited_at', row.invited_at),
  };
}

/** Emails are compared and stored lower-cased and trimmed, as GoTrue does. */
export function normalizeEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim().toLowerCase();
  // One @, something on both sides, no spaces or control characters: the rest is the
  // mail server's business (and a confirmation link proves the address anyway).
  return /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(email) && email.length <= 254
    ? email
    : undefined;
}
