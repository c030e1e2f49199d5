#!/usr/bin/env bash
# npm test: the same bring-up as npm start (test database), then lint, build and every jest test.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/temporal.sh"
source "$STEPWISE_ROOT/scripts/lib/mysql.sh"

ensure_node_modules
ensure_temporal
ensure_mysql stepwise_test
cd "$STEPWISE_ROOT"
say "lint (eslint + tsc)"
npm run --silent lint
build  # e2e specs spawn the built worker to kill it mid-run

results="$STEPWISE_DATA_DIR/jest-results.json"
rm -f "$results"
status=0
npx jest --ci --json --outputFile="$results" "$@" || status=$?
[ -f "$results" ] || die "jest wrote no results"
# The plain closing line CI reads.
node -e 'const r=require(process.argv[1]);console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);process.exit(r.numTotalTests>0?0:1)' "$results" || status=1
exit $status
