-- service_role writes project_secrets too: the platform manages secrets as that role, never as a superuser.
GRANT INSERT, UPDATE, DELETE ON public.project_secrets TO service_role;
