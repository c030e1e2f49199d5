// The property specs draw a new seed each run and so keep finding new cases; CI (CI=true) runs them on one
// seed, so that a landing's run can be repeated. A failure prints its seed: FAST_CHECK_SEED=<seed> reruns it.
import fc from 'fast-check';

const seed = process.env.FAST_CHECK_SEED ?? (process.env.CI === 'true' ? '20261126' : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
