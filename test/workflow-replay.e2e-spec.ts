// The run workflow must replay the histories of runs started by earlier versions: a worker deployed in
// the middle of a run picks it up from its history. test/fixtures/histories holds one history per path
// through the workflow (tools, stop, failure, cancel), and assistant sessions' (assistant-v1-*: before they
// stayed open; assistant-session-*: one per execution); a change that cannot replay them needs `patched()`
// (or, before any release, a deliberate re-recording: STEPWISE_RECORD_HISTORIES=1 rewrites them, or a list
// of scenario names records those).
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { agentStep, graphEdge, llmStep, stopChecker, toolExecutorStep } from './support/factories';
import { reply } from './support/model-fake';
import { useStack, type Stack } from './support/stack';
import { ToolServer } from './support/tool-server';
import { aliasesFor, loadWorkflowBundle } from './support/workflow-bundle';
import { temporalDataConverter } from '../libs/config/src';
import { decryptedHistory, executionHistories } from './support/temporal-history';
import { chainCandidate, clarifier, newSession, sendMessage } from './support/assistant';
import { assistantWorkflowId } from '../libs/contracts/src';

const FIXTURES = path.join(__dirname, 'fixtures', 'histories');
// "1" records every scenario; a comma-separated list records those only (a new path, without touching the rest).
const RECORD = process.env.STEPWISE_RECORD_HISTORIES ?? '';
const recording = (scenario: string) => RECORD === '1' || RECORD.split(',').includes(scenario);

// Plain JSON through the SDK's own protobuf classes (its historyToJSON trips over two protobufjs versions here).
const { History } = temporal.api.history.v1;
const toFixture = (history: temporal.api.history.v1.IHistory) =>
  `${JSON.stringify(History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String }), null, 1)}\n`;
const fromFixture = (text: string) => History.fromObject(JSON.parse(text));

// With the workers' data converter: fresh histories are encrypted, recorded ones (older, plain) pass through it.
const replay = (history: unknown, workflowId: string, config: Stack['api']['config']) =>
  Worker.runReplayHistory({ workflowBundle: loadWorkflowBundle(), dataConverter: temporalDataConverter(config) }, history, workflowId);

describe('Run workflow replay', () => {
  let stack: Stack;
  useStack((started) => (stack = started));

  /** Starts a run over REST, waits for its end, and returns its Temporal history. */
  async function historyOf(
    steps: Record<string, unknown>[],
    before?: (runUuid: string) => Promise<void>,
    fields: Record<string, unknown> = {},
  ) {
    const wf = await stack.user.post('/workflows', { name: `replay-${randomUUID().slice(0, 8)}`, steps, ...fields });
    const started = (await stack.user.post(`/workflows/${wf.body.uuid}/runs`, { trigger_output: { products: ['a', 'b'] } })).body;
    await before?.(started.uuid);
    const run = await stack.waitForRun(started.uuid);
    const handle = (await stack.temporal()).workflow.getHandle(run.temporal.workflow_id);
    await handle.result().catch(() => undefined); // the execution closes just after the run is recorded
    return { status: run.status as string, workflowId: run.temporal.workflow_id as string, history: await handle.fetchHistory() };
  }

  it('replays fresh runs of every path (and records them with STEPWISE_RECORD_HISTORIES=1)', async () => {
    const tools = await ToolServer.start({ price: (args) => ({ ...(args as object), price: 10 }) });
    try {
      const name = `price_${randomUUID().slice(0, 6)}`;
      await stack.user.post('/tools', { name, description: 'a price', parameters: { type: 'object' }, endpoint_url: tools.url('price') });
      // Above LOCAL_TOOL_CALL_MAX_TIMEOUT_MS: an agent's call of it stays an ordinary activity.
      const slow = `slow_${randomUUID().slice(0, 6)}`;
      await stack.user.post('/tools', {
        name: slow,
        description: 'a price, slowly',
        parameters: { type: 'object' },
        endpoint_url: tools.url('price'),
        timeout_ms: 60_000,
      });
      // Called as a workflow tool (offered as `Forecast`): each call a child run, whose end the parent's history records.
      const forecast = await stack.user.post('/workflows', { name: 'Forecast', steps: [llmStep({ name: 'forecast' })] });
      const workflowTool = `workflow:${forecast.body.uuid}`;
      const agent = agentStep({ name: 'fetcher', tools: [name] });
      const compare = llmStep({ name: 'compare', system_prompt: `Compare <<step_output.${agent.uuid}>>` });
      const scenarios: Record<string, () => ReturnType<typeof historyOf>> = {
        'agent-llm-stop-checker-completed': () => {
          stack.model.script(
            reply.toolCalls([
              { name, arguments: { product: 'a' } },
              { name, arguments: { product: 'b' } },
            ]),
            reply.json({ prices: [10, 10] }),
            reply.json({ alerts: [1] }),
          );
          const checker = stopChecker(compare.uuid, {
            stop_conditions: [
              { step_definition_uuid: compare.uuid, extraction_json_path: '$.alerts.length', operator: 'equals', target_value: 0 },
            ],
          });
          return historyOf([agent, compare, checker]);
        },
        'stop-checker-stopped': () => {
          const check = llmStep({ name: 'check' });
          stack.model.script(reply.json({ status: 'stop' }));
          return historyOf([check, stopChecker(check.uuid), llmStep({ name: 'never' })]);
        },
        'step-failed': () => {
          stack.model.script(reply.error(400, { message: 'no such model' }));
          return historyOf([llmStep({ name: 'bad' }), llmStep()]);
        },
        'cancelled-mid-step': () => {
          stack.model.script(reply.text('too late', { delayMs: 60_000 }));
          return historyOf([llmStep({ name: 'slow' }), llmStep()], async (runUuid) => {
            await stack.model.waitForRequests(1);
            await stack.user.post(`/runs/${runUuid}/cancel`);
          });
        },
        'human-input-answered': () => {
          const human = { uuid: randomUUID(), type: 'human_input', name: 'approve', prompt: 'Approve?' };
          stack.model.script(reply.text('done'));
          return historyOf([human, llmStep({ name: 'after' })], async (runUuid) => {
            await stack.waitForRun(runUuid, (run) => run.status === 'awaiting_input');
            await stack.user.post(`/runs/${runUuid}/steps/${human.uuid}/input`, { input: { approved: true } });
          });
        },
        'conversation-ended': () => {
          const chat = agentStep({ name: 'chat', system_prompt: 'Chat with the user.' });
          const graph = {
            entry_node: chat.uuid,
            is_conversational: true,
            edges: [{ source_step_uuid: chat.uuid, target_step_uuid: null, condition_type: 'ALWAYS', condition_value: null }],
          };
          stack.model.script(reply.text('hello'), reply.toolCalls([{ name: 'end', arguments: {} }]), reply.text('bye'));
          const send = (runUuid: string, content: string) => stack.user.post(`/runs/${runUuid}/messages`, { content });
          return historyOf(
            [chat],
            async (runUuid) => {
              await stack.waitForRun(runUuid, (run) => run.status === 'awaiting_input');
              await send(runUuid, 'hi');
              await send(runUuid, 'bye');
            },
            { graph },
          );
        },
        'local-agent-rounds': () => {
          // A chain agent's start, turns, short tool call and completion as local activities, its long call queued.
          const both = agentStep({ name: 'both', tools: [name, slow] });
          stack.model.script(
            reply.toolCalls([
              { name, arguments: { product: 'a' } },
              { name: slow, arguments: { product: 'b' } },
            ]),
            reply.json({ prices: [10, 10] }),
            reply.text('compared'),
          );
          return historyOf([both, llmStep({ name: 'after', system_prompt: `Compare <<step_output.${both.uuid}>>` })]);
        },
        'chain-steps-shared': () => {
          // A chain's LLM steps one after another in the first one's local activity; the second's first attempt
          // fails there, so it runs again as its own activity (after its retry interval), the third with it.
          stack.model.script(reply.text('first'), reply.error(503), reply.text('second'), reply.text('third'));
          const retry_policy = { max_attempts: 3, initial_interval_seconds: 1 };
          return historyOf([llmStep({ name: 'one' }), llmStep({ name: 'two', retry_policy }), llmStep({ name: 'three' })]);
        },
        'agent-start-runs-turns': () => {
          // A chain agent whose turns call only a short tool: its start runs on into its rounds, one after another,
          // and completes the step with the final answer, all in one local activity (before: agent-rounds-shared.json,
          // a start, turns and completion each its own; agent-turns-complete.json, the completion with the turns).
          const rounds = agentStep({ name: 'rounds', tools: [name] });
          stack.model.script(
            reply.toolCalls([{ name, arguments: { product: 'a' } }]),
            reply.toolCalls([{ name, arguments: { product: 'b' } }]),
            reply.text('priced both'),
          );
          return historyOf([rounds]);
        },
        'local-chain-completed': () => {
          // A chain's short work as local activities: a call, a loop's start, iterations and end, a stop checker.
          const first = llmStep({ name: 'first' });
          const each = llmStep({
            name: 'each',
            system_prompt: 'Price <<item>>',
            loop: { type: 'for_each', input_path: '<<trigger_output.products>>' },
          });
          stack.model.respondWith(() => reply.json({ status: 'go' }));
          return historyOf([first, each, stopChecker(first.uuid), llmStep({ name: 'last' })]);
        },
        'agent-workflow-tool': () => {
          const caller = agentStep({ name: 'caller', tools: [workflowTool] });
          stack.model.script(
            reply.toolCalls([{ name: 'Forecast', arguments: {} }]),
            reply.json({ sky: 'clear' }),
            reply.json({ go: true }),
          );
          return historyOf([caller]);
        },
        'graph-workflow-tool': () => {
          // A graph agent hands the call to its tool executor, which runs it as its own child run.
          const planner = agentStep({ name: 'planner', tools: [workflowTool] });
          const executor = toolExecutorStep();
          const graph = { entry_node: planner.uuid, edges: [graphEdge(planner, executor, 'tool_executor')] };
          stack.model.script(
            reply.toolCalls([{ name: 'Forecast', arguments: {} }]),
            reply.json({ sky: 'clear' }),
            reply.json({ go: true }),
          );
          return historyOf([planner, executor], undefined, { graph });
        },
        'spend-paused-raised': async () => {
          // The user's own day holds less than the call's worst case (gpt-4.1 at list price): the run waits on its
          // spend limit in the workflow until the limit goes, then calls again.
          await stack.user.put('/usage/limits', { daily_usd: 0.001, monthly_usd: null });
          stack.model.script(reply.text('worth it'));
          return historyOf([llmStep({ name: 'dear', model: 'gpt-4.1', max_tokens: 1000 })], async (runUuid) => {
            await stack.waitForRun(runUuid, (run) => run.spend_pause != null);
            await stack.user.put('/usage/limits', { daily_usd: null, monthly_usd: null });
          });
        },
        'graph-branches-partial': () => {
          // Two branches from the entry, one failing; a data condition picks the step after the other.
          const [plan, good, bad, cheap, dear] = [
            llmStep({ name: 'plan' }),
            llmStep({ name: 'good' }),
            llmStep({ name: 'bad', model: 'bad-model', retry_policy: { max_attempts: 1 } }),
            llmStep({ name: 'cheap' }),
            llmStep({ name: 'dear' }),
          ];
          const price = (operator: string) => ({ conditions: { all: [{ path: '$.price', operator, value: 10 }] } });
          const graph = {
            entry_node: plan.uuid,
            edges: [
              graphEdge(plan, good),
              graphEdge(plan, bad),
              graphEdge(good, cheap, null, price('less_than')),
              graphEdge(good, dear, null, price('greater_than')),
              graphEdge(cheap, null),
            ],
          };
          stack.model.respondWith((request) => (request.body.model === 'bad-model' ? reply.error(400) : reply.json({ price: 5 })));
          return historyOf([plan, good, bad, cheap, dear], undefined, { graph });
        },
      };
      const expected: Record<string, string> = {
        'agent-llm-stop-checker-completed': 'completed',
        'stop-checker-stopped': 'stopped',
        'step-failed': 'failed',
        'cancelled-mid-step': 'cancelled',
        'human-input-answered': 'completed',
        'conversation-ended': 'completed',
        'graph-branches-partial': 'partial_success',
        'spend-paused-raised': 'completed',
        'local-chain-completed': 'completed',
        'local-agent-rounds': 'completed',
        'chain-steps-shared': 'completed',
        'agent-start-runs-turns': 'completed',
        'agent-workflow-tool': 'completed',
        'graph-workflow-tool': 'completed',
      };
      for (const [scenario, run] of Object.entries(scenarios)) {
        const { status, workflowId, history } = await run();
        stack.model.assertDone();
        stack.model.reset();
        expect([scenario, status]).toEqual([scenario, expected[scenario]]);
        await expect(replay(history, workflowId, stack.api.config)).resolves.toBeUndefined();
        if (recording(scenario)) {
          // Decrypted: the fixture must replay under whatever key the next machine has.
          mkdirSync(FIXTURES, { recursive: true });
          writeFileSync(path.join(FIXTURES, `${scenario}.json`), toFixture(decryptedHistory(history, stack.api.config.security.keyring)));
        }
      }
    } finally {
      await tools.close();
    }
  });

  async function settledHistories(workflowId: string, timeoutMs = 30_000) {
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const histories = await executionHistories(workflowId);
      if (histories.at(-1)!.events!.some((event) => event.workflowTaskCompletedEventAttributes)) return histories;
      if (Date.now() > deadline) throw new Error(`the last execution of ${workflowId} ran no workflow task within ${timeoutMs} ms`);
    }
  }

  it('replays a fresh assistant session across its executions (asked, saved, failed, edited), recorded as assistant-session-<n>', async () => {
    const session = await newSession(stack.user);
    const say = async (text: string) => (await sendMessage(stack.user, session, text)).done;
    const candidate = chainCandidate();
    stack.model.script(clarifier.asks('Which language?'));
    await say('Summarise');
    stack.model.script(clarifier.ready(), reply.json(candidate));
    await say('English');
    stack.model.script(clarifier.ready(), ...[0, 1, 2, 3].map(() => reply.json(chainCandidate(undefined, true))));
    await say('add a translation');
    stack.model.script(clarifier.ready(), reply.json({ ...candidate, description: 'edited' }));
    await say('just describe it better');
    stack.model.assertDone();
    stack.model.reset();
    // Two turns an execution in the specs: the first continued as new after the save.
    // The session continued as new after its last turn: wait until that execution has run its first task, since
    // a history of only its start event has nothing to replay (the replayer waits on it for ever).
    const histories = await settledHistories(assistantWorkflowId(session));
    expect(histories.length).toBeGreaterThanOrEqual(2);
    for (const [i, history] of histories.entries()) {
      await expect(replay(history, `${assistantWorkflowId(session)}#${i}`, stack.api.config)).resolves.toBeUndefined();
      if (recording('assistant-session'))
        writeFileSync(
          path.join(FIXTURES, `assistant-session-${i + 1}.json`),
          toFixture(decryptedHistory(history, stack.api.config.security.keyring)),
        );
    }
  });

  it('catches a workflow change that runs in flight could not survive', async () => {
    // The same check as below, against a build whose workflow issues a timer first: it must not pass.
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'incompatible', 'workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), ...aliasesFor() } },
      }),
    });
    const file = 'agent-llm-stop-checker-completed.json';
    const history = fromFixture(readFileSync(path.join(FIXTURES, file), 'utf8'));
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, history, file)).rejects.toThrow(DeterminismViolationError);
  });

  it('replays the histories recorded by earlier versions', async () => {
    const files = readdirSync(FIXTURES).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const history = fromFixture(readFileSync(path.join(FIXTURES, file), 'utf8'));
      await expect(replay(history, file, stack.api.config)).resolves.toBeUndefined();
    }
  });
});
