-- Auth emails of projects without SMTP, kept for GET /v1/projects/{ref}/auth/emails; the worker prunes each project to CAPTURED_EMAILS_KEEP.
CREATE TABLE captured_emails (
  id bigserial NOT NULL,
  project_ref text NOT NULL,
  kind text NOT NULL,
  to_address text NOT NULL,
  subject text NOT NULL,
  html text NOT NULL,
  text_body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT captured_emails_pkey PRIMARY KEY (id),
  CONSTRAINT captured_emails_project_ref_fkey FOREIGN KEY (project_ref) REFERENCES projects (ref) ON DELETE CASCADE
);
-- Serves both the newest-first listing and the prune of everything past the newest N.
CREATE INDEX captured_emails_project_ref_created_at_idx ON captured_emails (project_ref, created_at DESC, id DESC);
