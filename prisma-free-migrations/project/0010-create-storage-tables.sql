-- storage: bucket and object metadata under Row Level Security, as in Supabase. The data plane
-- reads and writes them as the request's role, so the project's policies on storage.objects
-- decide who may list, read, upload, replace and delete; service_role bypasses them.
CREATE TABLE storage.buckets (
  id text NOT NULL,
  name text NOT NULL,
  owner uuid,
  public boolean NOT NULL DEFAULT false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT buckets_pkey PRIMARY KEY (id),
  CONSTRAINT buckets_file_size_limit_check CHECK (file_size_limit IS NULL OR file_size_limit >= 0)
);
CREATE UNIQUE INDEX buckets_name_key ON storage.buckets (name);

-- `version` names the stored bytes (a UUID): a replaced object points at new bytes, so a reader
-- of the old ones is never cut off and a failed upload changes nothing.
CREATE TABLE storage.objects (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bucket_id text NOT NULL,
  name text NOT NULL,
  owner uuid,
  owner_id text,
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] GENERATED ALWAYS AS (pg_catalog.string_to_array(name, '/')) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_accessed_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT objects_pkey PRIMARY KEY (id),
  CONSTRAINT objects_bucket_id_fkey FOREIGN KEY (bucket_id) REFERENCES storage.buckets (id),
  CONSTRAINT objects_bucket_id_name_key UNIQUE (bucket_id, name)
);
-- Prefix listings (`name LIKE 'a/b/%'`) and name order, byte-wise as storage-api sorts.
CREATE INDEX objects_bucket_id_name_c_idx ON storage.objects (bucket_id, name COLLATE "C");

ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON storage.buckets, storage.objects
  TO anon, authenticated, service_role;

-- Helpers for policies: storage.foldername('a/b/c.png') = {a,b}, filename = 'c.png', extension = 'png'.
CREATE FUNCTION storage.foldername(name text) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  SET search_path = ''
  AS $$
    SELECT (pg_catalog.string_to_array(name, '/'))[1:pg_catalog.array_length(pg_catalog.string_to_array(name, '/'), 1) - 1]
  $$;
CREATE FUNCTION storage.filename(name text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  SET search_path = ''
  AS $$
    SELECT (pg_catalog.string_to_array(name, '/'))[pg_catalog.array_length(pg_catalog.string_to_array(name, '/'), 1)]
  $$;
CREATE FUNCTION storage.extension(name text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  SET search_path = ''
  AS $$
    SELECT CASE WHEN pg_catalog.strpos(storage.filename(name), '.') = 0 THEN ''
                ELSE pg_catalog.reverse(pg_catalog.split_part(pg_catalog.reverse(storage.filename(name)), '.', 1)) END
  $$;
GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text)
  TO anon, authenticated, service_role;

-- The project's admin role writes the policies, which needs ownership (as Supabase's postgres
-- role). The template has no admin role: new projects get this at their finish step.
DO $$
DECLARE
  admin_role text := pg_catalog.substr(pg_catalog.current_database(), 6) || '_admin';
BEGIN
  IF pg_catalog.current_database() LIKE 'proj\_%'
     AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = admin_role) THEN
    EXECUTE pg_catalog.format('ALTER TABLE storage.buckets OWNER TO %I', admin_role);
    EXECUTE pg_catalog.format('ALTER TABLE storage.objects OWNER TO %I', admin_role);
  END IF;
END
$$;
