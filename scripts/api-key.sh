#!/usr/bin/env bash
# npm run api-key -- create --user <id> [--name <name>] | list [--user <id>] | revoke <uuid|prefix>
# Needs only MySQL (not Temporal): installs what is missing, brings MySQL up, builds, migrates, then runs the
# CLI. Progress goes to stderr, so stdout holds the CLI's own output (a new key is printed there once).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"

ensure_node_modules
ensure_mysql stepwise
ensure_encryption_keys
build
[ -f dist/apps/api/src/cli/api-key.js ] || die "dist/apps/api/src/cli/api-key.js is missing after the build"
node dist/libs/persistence/src/cli/migrate.js </dev/null >&2 || die "the migrations failed"
exec node dist/apps/api/src/cli/api-key.js "$@"
