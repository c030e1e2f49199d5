#!/usr/bin/env bash
# npm run bench [-- --mode quick|full|smoke]: the same bring-up as npm start (database stepwise_bench),
# then the benchmark, which starts the built API and worker itself next to the model fake.
# npm run bench:probe [-- --only chain,agent,start]: the same, measuring one part in about a minute.
# npm run bench:paired -- --against DIR: this build and another checkout's, side by side, their runs alternated.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$STEPWISE_ROOT/scripts/lib/bring-up.sh"

bring_up stepwise_bench
build
entry=run
if [[ "${1:-}" == "--probe" ]]; then entry=probe; shift; fi
if [[ "${1:-}" == "--paired" ]]; then entry=paired; shift; fi
node "dist/bench/$entry.js" "$@"
