-- Projects made before the finish step granted it: the project's admin role may create schemas
-- in its own database (an `api` schema to expose through REST), as Supabase's postgres role.
-- Acts only in a project database whose admin role exists (not in the template).
DO $$
DECLARE
  admin_role text := pg_catalog.substr(pg_catalog.current_database(), 6) || '_admin';
BEGIN
  IF pg_catalog.current_database() LIKE 'proj\_%'
     AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = admin_role) THEN
    EXECUTE pg_catalog.format('GRANT CREATE ON DATABASE %I TO %I', pg_catalog.current_database(), admin_role);
  END IF;
END
$$;
