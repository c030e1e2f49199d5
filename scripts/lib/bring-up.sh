# Sourced after common.sh by npm start, npm test and npm run bench: dependencies, Temporal, and MySQL with
# the database named in $1, exported for the processes they start.
source "$STEPWISE_ROOT/scripts/lib/temporal.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"

bring_up() {
  ensure_node_modules
  ensure_temporal
  ensure_mysql "$1"
  ensure_encryption_keys
  export DATABASE_URL TEMPORAL_ADDRESS TEMPORAL_NAMESPACE
}
