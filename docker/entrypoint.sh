#!/bin/sh
# With arguments, runs them (e.g. `node dist/scripts/migrate.js`); without, starts $APP.
set -eu
if [ "$#" -gt 0 ]; then
  exec "$@"
fi
case "${APP:-}" in
  control-plane | data-plane | worker) exec node "dist/apps/${APP}/src/main.js" ;;
  *)
    echo "APP must be control-plane, data-plane or worker, got '${APP:-}'" >&2
    exit 64
    ;;
esac
