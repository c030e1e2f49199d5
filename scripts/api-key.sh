#!/usr/bin/env bash
# npm run api-key -- create --user <id> --name <name> | list [--user <id>] | revoke <uuid>
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"
ensure_node_modules
ensure_mysql stepwise
[ -f "$STEPWISE_ROOT/dist/apps/api/src/cli/api-key.js" ] || build
node "$STEPWISE_ROOT/dist/libs/persistence/src/cli/migrate.js" >/dev/null
node "$STEPWISE_ROOT/dist/apps/api/src/cli/api-key.js" "$@"
