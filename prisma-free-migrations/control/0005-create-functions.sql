-- Edge functions of each project: the active version's source and compiled code, the project's
-- function limits, and the latest invocations (status, duration, captured logs).
CREATE TABLE functions (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  project_ref text NOT NULL,
  slug text NOT NULL,
  name text NOT NULL,
  version integer NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE',
  source text NOT NULL,
  code text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT functions_pkey PRIMARY KEY (id),
  CONSTRAINT functions_project_ref_fkey FOREIGN KEY (project_ref) REFERENCES projects (ref) ON DELETE CASCADE,
  CONSTRAINT functions_project_ref_slug_key UNIQUE (project_ref, slug),
  CONSTRAINT functions_version_check CHECK (version >= 1)
);

CREATE TABLE function_invocations (
  id bigserial NOT NULL,
  function_id uuid NOT NULL,
  version integer NOT NULL,
  status text NOT NULL,
  http_status integer NOT NULL,
  duration_ms integer NOT NULL,
  logs jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT function_invocations_pkey PRIMARY KEY (id),
  CONSTRAINT function_invocations_function_id_fkey FOREIGN KEY (function_id) REFERENCES functions (id) ON DELETE CASCADE
);
-- Newest first per function, and the prune of everything past the newest N.
CREATE INDEX function_invocations_function_id_id_idx ON function_invocations (function_id, id DESC);

CREATE TABLE project_function_configs (
  project_ref text NOT NULL,
  timeout_ms integer NOT NULL DEFAULT 10000,
  memory_mb integer NOT NULL DEFAULT 128,
  max_payload_bytes integer NOT NULL DEFAULT 6291456,
  max_concurrency integer NOT NULL DEFAULT 10,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT project_function_configs_pkey PRIMARY KEY (project_ref),
  CONSTRAINT project_function_configs_project_ref_fkey FOREIGN KEY (project_ref) REFERENCES projects (ref) ON DELETE CASCADE
);
