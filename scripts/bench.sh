#!/usr/bin/env bash
# npm run bench [-- --mode quick|full|smoke]: the same bring-up as npm start (database stepwise_bench),
# then the benchmark, which starts the built API and worker itself next to the model fake.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"

bring_up stepwise_bench
build
node dist/bench/run.js "$@"
