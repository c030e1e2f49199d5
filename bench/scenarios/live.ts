// Live runs (#28): how soon a streamed answer's first piece reaches a watcher of GET /runs/{uuid}/events
// after the provider wrote it (the model fake's clock and the client's are the same machine's), and one
// run watched by many clients at once. The cost of streaming per step: a 5-step chain on a system with
// MODEL_STREAMING off against the same on this one, their runs alternated (see probe.ts and run.ts).
import { readFileSync } from 'node:fs';
import { reply, type FakeReply, type ModelFake, type RecordedRequest, type ReplyHandler } from '../../test/support/model-fake';
import { alternate, pairedFigures } from '../support/alternate';
import { distribution, round, type Distribution } from '../support/stats';
import { stepwiseRunner } from '../support/stepwise.runner';
import type { System } from '../support/system';
import { table } from '../support/table';

export interface LiveResult {
  first_delta_ms: Distribution;
}

export interface WatchersResult {
  watchers: number;
  first_delta_ms: Distribution;
  /** Watchers that got the whole answer, piece by piece. */
  complete: number;
  /** CPU the API spent (user + system) while the answer streamed to them. */
  api_cpu_ms: number;
  stream_ms: number;
}

const ANSWER = 'Stepwise streams the answer of a model to whoever watches the run, piece by piece.';
const PROMPT = 'Say it';

/** The scenario's own steps (their prompt) get `answer`; every other request (step summaries...) the bench's replies. */
function answering(model: ModelFake, replies: ReplyHandler, answer: FakeReply): void {
  model.respondWith((request: RecordedRequest) => (request.body.messages[0]?.content === PROMPT ? answer : replies(request)));
}

/** Opens the run's stream; resolves with when the first delta arrived and the text it was given, once the run ended. */
async function watch(system: System, runUuid: string, opened: () => void): Promise<{ firstDeltaAt: number | null; text: string }> {
  const response = await fetch(`${system.apiUrl}/runs/${runUuid}/events`, { headers: { authorization: `Bearer ${system.key}` } });
  if (!response.ok) throw new Error(`events: ${response.status} ${await response.text()}`);
  opened();
  const decoder = new TextDecoder();
  let buffer = '';
  let firstDeltaAt: number | null = null;
  let text = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const event = JSON.parse(data) as { type: string; text?: string; kind?: string };
      if (event.type === 'delta' && event.kind === 'text') {
        firstDeltaAt ??= Date.now();
        text += event.text;
      } else if (event.type === 'text_so_far') text += event.text;
    }
  }
  return { firstDeltaAt, text };
}

const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
};

/**
 * `runs` one-step runs, each watched by one client that connects before the model answers: the time from
 * the fake writing the answer's first piece to the client reading it.
 */
export async function measureFirstDelta(system: System, model: ModelFake, replies: ReplyHandler, runs: number): Promise<LiveResult> {
  const workflowUuid = await system.createWorkflow([{ type: 'custom_llm', name: 'live', model: 'bench-model', system_prompt: PROMPT }]);
  answering(model, replies, reply.text(ANSWER, { delayMs: 300, stream: { pieceChars: 8, chunkDelayMs: 20 } }));
  const latencies: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const runUuid = await system.startRun(workflowUuid);
      const { firstDeltaAt } = await watch(system, runUuid, () => undefined);
      const firstPieceAt = firstPieceOf(model);
      if (firstDeltaAt && firstPieceAt) latencies.push(firstDeltaAt - firstPieceAt);
    }
  } finally {
    model.respondWith(replies);
  }
  return { first_delta_ms: distribution(latencies) };
}

/** When the fake wrote the first piece of the answer to the newest run's step (runs go one at a time). */
const firstPieceOf = (model: ModelFake): number | undefined =>
  model.requests.filter((request) => request.body.messages[0]?.content === PROMPT).at(-1)?.chunks_at?.[1];

/** One run watched by `watchers` clients (connected before the answer streams for about a second). */
export async function measureWatchers(system: System, model: ModelFake, replies: ReplyHandler, watchers: number): Promise<WatchersResult> {
  const workflowUuid = await system.createWorkflow([{ type: 'custom_llm', name: 'watched', model: 'bench-model', system_prompt: PROMPT }]);
  answering(model, replies, reply.text(ANSWER.repeat(4), { delayMs: 2000, stream: { pieceChars: 6, chunkDelayMs: 20 } }));
  const runUuid = await system.startRun(workflowUuid);
  let opened = 0;
  const all = Array.from({ length: watchers }, () => watch(system, runUuid, () => opened++));
  while (opened < watchers) await new Promise((resolve) => setTimeout(resolve, 10));
  const cpuBefore = cpuMs(system.api.pid!);
  const results = await Promise.all(all).finally(() => model.respondWith(replies));
  const cpuAfter = cpuMs(system.api.pid!);
  const chunks = model.requests.filter((request) => request.body.messages[0]?.content === PROMPT).at(-1)?.chunks_at ?? [];
  const firstPieceAt = chunks[1] ?? 0;
  return {
    watchers,
    first_delta_ms: distribution(results.flatMap(({ firstDeltaAt }) => (firstDeltaAt ? [firstDeltaAt - firstPieceAt] : []))),
    complete: results.filter(({ text }) => text === ANSWER.repeat(4)).length,
    api_cpu_ms: Math.round(cpuAfter - cpuBefore),
    stream_ms: (chunks.at(-1) ?? 0) - firstPieceAt,
  };
}

export interface LiveReport {
  first_delta: LiveResult;
  watchers: WatchersResult[];
  /** A 5-step chain's run streamed and not (p50 ms), and what streaming adds a step (p50 of the paired differences / 5); null when not compared. */
  streamed_chain: { streamed_run_ms: number; not_streamed_run_ms: number; added_per_step_ms: number } | null;
}

export interface LiveSizes {
  firstDeltaRuns: number;
  /** Clients watching one run at once (besides one alone). */
  watchers: number;
}

/** The chain whose runs compare streaming on and off. */
const COMPARED_STEPS = 5;

/**
 * The whole live-runs family: first-delta latency, 1 and `watchers` watchers of one run, and, given a way to
 * start a system with MODEL_STREAMING off, a chain's runs there alternated with the same chain's on `system`.
 */
export async function measureLive(
  system: System,
  model: ModelFake,
  replies: ReplyHandler,
  sizes: LiveSizes,
  compare: { unstreamed: () => Promise<System>; pairs: number } | null,
): Promise<LiveReport> {
  const first_delta = await measureFirstDelta(system, model, replies, sizes.firstDeltaRuns);
  const watchers = [await measureWatchers(system, model, replies, 1), await measureWatchers(system, model, replies, sizes.watchers)];
  if (!compare) return { first_delta, watchers, streamed_chain: null };
  const other = await compare.unstreamed();
  try {
    const chains = await Promise.all([other, system].map((each) => stepwiseRunner(each, '').prepareChain(COMPARED_STEPS)));
    const figures = pairedFigures(await alternate([chains[0], chains[1]], compare.pairs));
    return {
      first_delta,
      watchers,
      streamed_chain: {
        streamed_run_ms: figures.p50[1],
        not_streamed_run_ms: figures.p50[0],
        added_per_step_ms: round(figures.difference_p50 / COMPARED_STEPS),
      },
    };
  } finally {
    await other.stop();
  }
}

/** The report's tables. */
export function liveTables(live: LiveReport, heading: string): string[] {
  const d = live.first_delta.first_delta_ms;
  const tables = [
    table(
      `${heading}: provider's first piece -> SSE client (ms)`,
      ['watchers', 'p50', 'p95', 'max', 'n', 'got it all', 'API CPU ms', 'stream ms'],
      [
        ['1 per run', d.p50, d.p95, d.max, d.n, '', '', ''],
        ...live.watchers.map((w) => [
          `${w.watchers} on one run`,
          w.first_delta_ms.p50,
          w.first_delta_ms.p95,
          w.first_delta_ms.max,
          w.first_delta_ms.n,
          w.complete,
          w.api_cpu_ms,
          w.stream_ms,
        ]),
      ],
    ),
  ];
  const compared = live.streamed_chain;
  if (compared)
    tables.push(
      table(
        `${heading}: a ${COMPARED_STEPS}-step chain streamed and not, runs alternated (ms)`,
        ['MODEL_STREAMING=on run p50', 'off run p50', 'added per step (p50 of paired differences)'],
        [[compared.streamed_run_ms, compared.not_streamed_run_ms, compared.added_per_step_ms]],
      ),
    );
  return tables;
}
