-- project_secrets: values for edge functions. RLS on and no policy: only service_role (BYPASSRLS) reads them.
CREATE TABLE public.project_secrets (
  name text NOT NULL,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT project_secrets_pkey PRIMARY KEY (name)
);
ALTER TABLE public.project_secrets ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON public.project_secrets FROM anon, authenticated;
GRANT SELECT ON public.project_secrets TO service_role;
