-- auth: what the email flows need. One-time tokens gain a six-digit code (stored hashed, with a
-- failure counter so it cannot be guessed), the invite kind, and the users table GoTrue's
-- "sent at" timestamps.
ALTER TABLE auth.one_time_tokens
  ADD COLUMN code_hash text,
  ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0,
  DROP CONSTRAINT one_time_tokens_kind_check,
  ADD CONSTRAINT one_time_tokens_kind_check
    CHECK (kind IN ('signup', 'invite', 'recovery', 'magiclink', 'email_change'));
CREATE INDEX one_time_tokens_email_idx ON auth.one_time_tokens (lower(email), kind);

ALTER TABLE auth.users
  ADD COLUMN confirmation_sent_at timestamptz,
  ADD COLUMN recovery_sent_at timestamptz,
  ADD COLUMN email_change_sent_at timestamptz,
  ADD COLUMN invited_at timestamptz;
