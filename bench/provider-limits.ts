// node dist/bench/provider-limits.js [--runs 100] [--rpm 60] [--limit 57] [--only limited,unlimited,latency]: provider limits
// shared by every worker (#31). `limited`: a model fake that allows --rpm requests a minute and answers 429
// past it, PROVIDER_LIMITS at the same rate; one user starts 90% of --runs at once, another the rest right
// after: the provider's 429s, whether every run completes, and each user's share of the first calls.
// `unlimited`: the same burst without PROVIDER_LIMITS (each worker meets the 429s on its own). `latency`:
// sequential one-step chains with no limit configured and with one far above the load: the added latency.
import { parseArgs } from 'node:util';
import type { ModelProvider } from '@app/contracts';
import { llmStep } from '../test/support/factories';
import { reply } from '../test/support/model-fake';
import { startStack, type Stack } from '../test/support/stack';
import type { ApiClient } from '../test/support/api';
import { runMain } from './support/main';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    rpm: { type: 'string', default: '60' },
    // PROVIDER_LIMITS requests per minute (default: --rpm).
    limit: { type: 'string' },
    only: { type: 'string', default: 'limited,unlimited,latency' },
  },
});
const RUNS = Number(values.runs);
const RPM = Number(values.rpm);
const LIMIT = Number(values.limit ?? values.rpm);
const only = new Set(values.only!.split(','));
const limits = (rpm: number) =>
  new Map<ModelProvider, { requestsPerMinute: number; tokensPerMinute: null }>([
    ['openai', { requestsPerMinute: rpm, tokensPerMinute: null }],
  ]);

async function startRuns(stack: Stack, user: ApiClient, count: number): Promise<string[]> {
  const workflow = (
    await user.post('/workflows', { name: `burst-${user.userId.slice(-6)}`, steps: [llmStep({ retry_policy: { max_attempts: 10 } })] })
  ).body;
  return Promise.all(
    Array.from(
      { length: count },
      async (_, i) =>
        (await user.post(`/workflows/${workflow.uuid}/runs`, { trigger_output: { n: i, user: user.userId } })).body.uuid as string,
    ),
  );
}

async function burst(name: string, rpmLimit: number | null): Promise<Record<string, unknown>> {
  const stack = await startStack({ providerLimits: rpmLimit ? limits(rpmLimit) : new Map() });
  try {
    stack.model.rateLimit(RPM).respondWith(() => reply.text('ok'));
    const [big, small] = [await stack.api.newUser(), await stack.api.newUser()];
    const started = Date.now();
    const bigRuns = startRuns(stack, big, Math.round(RUNS * 0.9));
    const smallRuns = startRuns(stack, small, RUNS - Math.round(RUNS * 0.9));
    const runs = [...(await bigRuns).map((uuid) => ({ uuid, user: big })), ...(await smallRuns).map((uuid) => ({ uuid, user: small }))];
    const ends = await Promise.all(
      runs.map(async ({ uuid, user }) => {
        const run = await stack.waitForRun(uuid, undefined, 15 * 60_000, user);
        return { user: user === big ? 'big' : 'small', status: run.status, ms: Date.parse(String(run.finished_at)) - started };
      }),
    );
    const answered = stack.model.requests.filter((request) => request.status === 200);
    const firstCalls = answered
      .slice(0, 30)
      .map((request) => (JSON.stringify(request.body.messages).includes(small.userId) ? 'small' : 'big'));
    const median = (user: string) => {
      const times = ends
        .filter((end) => end.user === user)
        .map((end) => end.ms)
        .sort((a, b) => a - b);
      return Math.round(times[Math.floor(times.length / 2)] / 1000);
    };
    return {
      scenario: name,
      runs: RUNS,
      provider_rpm: RPM,
      provider_limits: rpmLimit ?? 'none',
      completed: ends.filter((end) => end.status === 'completed').length,
      provider_429s: stack.model.rateLimited,
      provider_429s_at_s: stack.model.requests
        .filter((request) => request.status === 429)
        .map((request) => Math.round((request.received_at - started) / 100) / 10),
      requests: stack.model.requests.length,
      requests_by_status: Object.fromEntries(
        [...new Set(stack.model.requests.map((request) => String(request.status)))].map((status) => [
          status,
          stack.model.requests.filter((request) => String(request.status) === status).length,
        ]),
      ),
      small_user_share_of_first_30_calls: `${firstCalls.filter((user) => user === 'small').length}/30 (${RUNS - Math.round(RUNS * 0.9)} of ${RUNS} runs)`,
      median_end_s: { big: median('big'), small: median('small') },
      all_done_s: Math.round(Math.max(...ends.map((end) => end.ms)) / 1000),
    };
  } finally {
    await stack.close();
  }
}

async function latency(name: string, rpmLimit: number | null, count = 40): Promise<Record<string, unknown>> {
  const stack = await startStack({ providerLimits: rpmLimit ? limits(rpmLimit) : new Map() });
  try {
    stack.model.autoReply();
    const workflow = await stack.createWorkflow([llmStep()]);
    const times: number[] = [];
    for (let i = 0; i < count + 5; i++) {
      const started = process.hrtime.bigint();
      const run = await stack.startRun(workflow.uuid, { i });
      await stack.waitForRun(run.uuid);
      if (i >= 5) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))] * 10) / 10;
    return { scenario: name, provider_limits: rpmLimit ?? 'none', runs: count, p50_ms: at(0.5), p90_ms: at(0.9) };
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  const results = [];
  if (only.has('latency')) {
    results.push(await latency('chain, no limit configured', null));
    results.push(await latency('chain, limit far above the load', 100_000));
  }
  if (only.has('limited')) results.push(await burst(`burst, PROVIDER_LIMITS=${LIMIT} against a provider allowing ${RPM}`, LIMIT));
  if (only.has('unlimited')) results.push(await burst('burst, no PROVIDER_LIMITS', null));
  console.log(JSON.stringify(results, null, 2));
}

runMain(main);
