-- auth: a sign-up's password travels with its confirmation token and is applied when the link
-- is followed, so whoever confirms an address also chose its password (an unconfirmed account
-- pre-registered by someone else cannot keep that person's password).
ALTER TABLE auth.one_time_tokens ADD COLUMN password_hash text;
