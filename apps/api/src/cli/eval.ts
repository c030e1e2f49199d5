// npm run eval -- <workflow uuid> <dataset> [--against <version>] [--target <version>] [--timeout <seconds>]
// Runs an evaluation through the API (STEPWISE_API_URL, default http://127.0.0.1:$API_PORT/api/v1; STEPWISE_API_KEY),
// waits for its report, prints it, and exits 1 on a regression (without --against: on any failed case), 2 when
// it could not evaluate: a team's CI runs it after a prompt change.
import { parseArgs } from 'node:util';
import type { EvaluationReport } from '@app/domain';
import { verdictOf } from './eval-report';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { against: { type: 'string' }, target: { type: 'string' }, timeout: { type: 'string', default: '1800' } },
  });
  const [workflow, dataset] = positionals;
  const key = process.env.STEPWISE_API_KEY;
  if (!workflow || !dataset || !key) {
    console.error('usage: STEPWISE_API_KEY=... npm run eval -- <workflow uuid> <dataset> [--against <version>] [--target <version>]');
    return 2;
  }
  const base = process.env.STEPWISE_API_URL ?? `http://127.0.0.1:${process.env.API_PORT ?? 3000}/api/v1`;
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const version = (text: string | undefined) => (text === undefined || text === 'current' ? text : Number(text));
  let evaluation = await call('POST', `/workflows/${workflow}/evaluations`, {
    dataset,
    ...(values.against !== undefined ? { against: version(values.against) } : {}),
    ...(values.target !== undefined ? { target: version(values.target) } : {}),
  });
  console.log(`evaluation ${evaluation.uuid as string} of ${dataset} started`);
  const deadline = Date.now() + Number(values.timeout) * 1000;
  while (evaluation.status === 'running') {
    if (Date.now() > deadline) {
      console.error(`evaluation ${evaluation.uuid as string} still running after ${values.timeout} s`);
      return 2;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    evaluation = await call('GET', `/evaluations/${evaluation.uuid as string}`);
  }
  if (evaluation.status !== 'completed') {
    console.error(`evaluation ${evaluation.uuid as string} ${evaluation.status as string}: ${String(evaluation.error_message ?? '')}`);
    return 2;
  }
  const verdict = verdictOf(evaluation.report as EvaluationReport);
  for (const line of verdict.lines) console.log(line);
  return verdict.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message ?? error);
    process.exit(2);
  },
);
