# Sourced after common.sh by npm start, npm test and npm run bench: dependencies, Temporal, and MySQL with
# the database named in $1 (emptied first when $2 is `fresh`), exported for the processes they start.
source "$STEPWISE_ROOT/scripts/lib/temporal.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"

bring_up() {
  ensure_node_modules
  ensure_temporal
  ensure_mysql "$1" "${2:-}"
  ensure_encryption_keys
  export DATABASE_URL TEMPORAL_ADDRESS TEMPORAL_NAMESPACE
}
