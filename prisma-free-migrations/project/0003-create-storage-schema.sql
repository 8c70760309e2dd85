-- storage: bucket and object metadata live here (tables arrive with the storage feature).
CREATE SCHEMA IF NOT EXISTS storage;
GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
