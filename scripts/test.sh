#!/usr/bin/env bash
# npm test [-- <jest args>]: the same install and bring-up as npm start (database stepwise_test, emptied first), then lint
# (eslint + tsc), build (the e2e specs spawn dist/apps/worker to kill it mid-run) and every jest test: the
# unit, medium, workflow and e2e projects of jest.config.js.
# Ends with one plain line on stdout, `tests: N passed, N failed`, which CI reads. Exits non-zero when
# lint failed, a test or a suite failed, or no test ran.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"
source "$STEPWISE_ROOT/scripts/lib/browser.sh"

bring_up stepwise_test fresh
ensure_chromium

failed=0
say "lint (eslint + tsc)"
start=$SECONDS
if npm run --silent lint </dev/null >&2; then say "lint passed ($(( SECONDS - start ))s)"; else say "lint FAILED"; failed=1; fi
build

results="$STEPWISE_DATA_DIR/jest-results.json"
rm -f "$results"
say "jest $*"
npx jest --ci --json --outputFile="$results" "$@" </dev/null >&2 || failed=1
[ -f "$results" ] || say "jest wrote no results to $results (it failed before running the tests)"

# The closing line CI reads, alone on stdout; the exit status counts failed suites too (a spec file that
# does not compile has no failed test, only a failed suite).
node -e '
  const fs = require("node:fs");
  const r = fs.existsSync(process.argv[1]) ? JSON.parse(fs.readFileSync(process.argv[1], "utf8")) : {};
  const passed = r.numPassedTests ?? 0, failed = r.numFailedTests ?? 0, brokenSuites = r.numRuntimeErrorTestSuites ?? 0;
  if (brokenSuites > 0) console.error(`[stepwise] ${brokenSuites} test suite(s) failed to run`);
  if ((r.numTotalTests ?? 0) === 0) console.error("[stepwise] no test ran");
  console.log(`tests: ${passed} passed, ${failed} failed`);
  process.exit(r.success === true && failed === 0 && brokenSuites === 0 && r.numTotalTests > 0 ? 0 : 1);
' "$results" || failed=1
exit "$failed"
