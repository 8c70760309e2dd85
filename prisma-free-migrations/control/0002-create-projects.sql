-- Projects: one per tenant database. Secrets are sealed with MASTER_KEY; API keys are derived, not stored.
CREATE TABLE projects (
  ref text NOT NULL,
  account_id uuid NOT NULL,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'COMING_UP',
  status_reason text,
  progress integer NOT NULL DEFAULT 0,
  cluster text NOT NULL DEFAULT 'default',
  db_name text NOT NULL,
  jwt_secret_enc text,
  keys_issued_at bigint,
  keys_version integer NOT NULL DEFAULT 0,
  admin_password_enc text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT projects_pkey PRIMARY KEY (ref),
  CONSTRAINT projects_ref_check CHECK (ref ~ '^[a-z0-9]{20}$'),
  CONSTRAINT projects_status_check CHECK (status IN ('COMING_UP', 'ACTIVE_HEALTHY', 'INIT_FAILED', 'GOING_DOWN')),
  CONSTRAINT projects_progress_check CHECK (progress BETWEEN 0 AND 100),
  CONSTRAINT projects_db_name_key UNIQUE (db_name),
  CONSTRAINT projects_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE RESTRICT
);
CREATE INDEX projects_account_id_idx ON projects (account_id);

-- Per-project auth settings, changed at runtime through PATCH /v1/projects/{ref}/config/auth.
CREATE TABLE project_auth_configs (
  project_ref text NOT NULL,
  site_url text NOT NULL DEFAULT 'http://localhost:3000',
  uri_allow_list text NOT NULL DEFAULT '',
  mailer_autoconfirm boolean NOT NULL DEFAULT false,
  jwt_exp integer NOT NULL DEFAULT 3600,
  password_min_length integer NOT NULL DEFAULT 6,
  smtp_host text,
  smtp_port integer,
  smtp_user text,
  smtp_pass_enc text,
  smtp_admin_email text,
  smtp_sender_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT project_auth_configs_pkey PRIMARY KEY (project_ref),
  CONSTRAINT project_auth_configs_project_ref_fkey FOREIGN KEY (project_ref) REFERENCES projects (ref) ON DELETE CASCADE,
  CONSTRAINT project_auth_configs_jwt_exp_check CHECK (jwt_exp BETWEEN 30 AND 604800),
  CONSTRAINT project_auth_configs_password_min_length_check CHECK (password_min_length BETWEEN 6 AND 128),
  CONSTRAINT project_auth_configs_smtp_port_check CHECK (smtp_port IS NULL OR smtp_port BETWEEN 1 AND 65535)
);
