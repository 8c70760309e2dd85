-- Platform accounts (people who own projects) and their long-lived personal access tokens.
CREATE TABLE accounts (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT accounts_pkey PRIMARY KEY (id),
  CONSTRAINT accounts_email_key UNIQUE (email),
  CONSTRAINT accounts_email_lowercase_check CHECK (email = lower(email))
);

CREATE TABLE access_tokens (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT access_tokens_pkey PRIMARY KEY (id),
  CONSTRAINT access_tokens_token_hash_key UNIQUE (token_hash),
  CONSTRAINT access_tokens_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
);
CREATE INDEX access_tokens_account_id_idx ON access_tokens (account_id);
