-- Per-project REST API (PostgREST) settings, changed at runtime through PATCH /v1/projects/{ref}/postgrest; no row means the defaults.
CREATE TABLE project_rest_configs (
  project_ref text NOT NULL,
  db_schema text NOT NULL DEFAULT 'public',
  db_extra_search_path text NOT NULL DEFAULT 'public',
  max_rows integer NOT NULL DEFAULT 1000,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT project_rest_configs_pkey PRIMARY KEY (project_ref),
  CONSTRAINT project_rest_configs_project_ref_fkey FOREIGN KEY (project_ref) REFERENCES projects (ref) ON DELETE CASCADE,
  CONSTRAINT project_rest_configs_max_rows_check CHECK (max_rows BETWEEN 1 AND 1000000)
);
