-- _platform: internals of the platform, never exposed. schema_version counts DDL so caches know when to reload.
CREATE SCHEMA IF NOT EXISTS _platform;

CREATE TABLE _platform.schema_version (
  id boolean NOT NULL DEFAULT true,
  version bigint NOT NULL DEFAULT 1,
  CONSTRAINT schema_version_pkey PRIMARY KEY (id),
  CONSTRAINT schema_version_single_row_check CHECK (id)
);
INSERT INTO _platform.schema_version (id, version) VALUES (true, 1);

-- SECURITY DEFINER: the counter is bumped whoever runs the DDL, yet nobody else may write it.
CREATE FUNCTION _platform.bump_schema_version() RETURNS event_trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
  UPDATE _platform.schema_version SET version = version + 1 WHERE id;
END;
$$;
REVOKE ALL ON FUNCTION _platform.bump_schema_version() FROM PUBLIC;

CREATE EVENT TRIGGER platform_bump_schema_version_on_ddl ON ddl_command_end
  EXECUTE FUNCTION _platform.bump_schema_version();
CREATE EVENT TRIGGER platform_bump_schema_version_on_drop ON sql_drop
  EXECUTE FUNCTION _platform.bump_schema_version();

-- The request transaction reads the version together with its settings, as any API role.
GRANT USAGE ON SCHEMA _platform TO anon, authenticated, service_role, authenticator;
GRANT SELECT ON _platform.schema_version TO anon, authenticated, service_role, authenticator;
