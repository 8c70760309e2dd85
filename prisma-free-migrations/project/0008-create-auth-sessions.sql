-- auth: what GoTrue keeps beside the users (sessions, rotating refresh tokens, one-time tokens,
-- an audit log), written only by the auth service as auth_admin. Secrets are stored hashed.
ALTER TABLE auth.users
  ADD COLUMN aud text NOT NULL DEFAULT 'authenticated',
  ADD COLUMN role text NOT NULL DEFAULT 'authenticated',
  ADD COLUMN phone text,
  ADD COLUMN email_change text,
  ADD COLUMN last_sign_in_at timestamptz,
  ADD COLUMN banned_until timestamptz,
  ADD COLUMN is_anonymous boolean NOT NULL DEFAULT false,
  ADD COLUMN deleted_at timestamptz;

CREATE TABLE auth.sessions (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  not_after timestamptz,
  aal text NOT NULL DEFAULT 'aal1',
  user_agent text,
  ip inet,
  CONSTRAINT sessions_pkey PRIMARY KEY (id),
  CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE
);
CREATE INDEX sessions_user_id_idx ON auth.sessions (user_id);

-- A refresh token is used once: using it revokes it and issues a child (parent_hash). A
-- revoked one presented again within a short grace window answers with its child; later,
-- it revokes the whole session.
CREATE TABLE auth.refresh_tokens (
  id bigserial NOT NULL,
  token_hash text NOT NULL,
  session_id uuid NOT NULL,
  user_id uuid NOT NULL,
  parent_hash text,
  revoked boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT refresh_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT refresh_tokens_token_hash_key UNIQUE (token_hash),
  CONSTRAINT refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES auth.sessions (id) ON DELETE CASCADE
);
CREATE INDEX refresh_tokens_session_id_idx ON auth.refresh_tokens (session_id);
CREATE INDEX refresh_tokens_parent_hash_idx ON auth.refresh_tokens (parent_hash);

-- Links and codes sent by email (signup confirmation, recovery, magic link, email change).
CREATE TABLE auth.one_time_tokens (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  kind text NOT NULL,
  token_hash text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT one_time_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT one_time_tokens_token_hash_key UNIQUE (token_hash),
  CONSTRAINT one_time_tokens_kind_check CHECK (kind IN ('signup', 'recovery', 'magiclink', 'email_change')),
  CONSTRAINT one_time_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES auth.users (id) ON DELETE CASCADE
);
CREATE INDEX one_time_tokens_user_id_idx ON auth.one_time_tokens (user_id, kind);

CREATE TABLE auth.audit_log_entries (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  payload jsonb NOT NULL,
  ip_address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT audit_log_entries_pkey PRIMARY KEY (id)
);

GRANT USAGE ON SCHEMA auth TO auth_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON auth.users, auth.sessions, auth.refresh_tokens,
  auth.one_time_tokens, auth.audit_log_entries TO auth_admin;
GRANT USAGE ON SEQUENCE auth.refresh_tokens_id_seq TO auth_admin;
-- The API roles see none of it (auth.users stays readable by nobody but its owners).
REVOKE ALL ON auth.sessions, auth.refresh_tokens, auth.one_time_tokens, auth.audit_log_entries
  FROM PUBLIC, anon, authenticated, service_role;
