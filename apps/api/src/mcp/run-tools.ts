// The MCP run tools (start, list, get, cancel, resume_run ...) over the service the REST controller calls.
import { FAILED_RUN_STATUSES } from '@app/contracts';
import { objectSchema, outputOf, pageOf, PAGINATION_ARGUMENTS, RUN_OUTPUT, uuidArgument, type StepwiseTool } from '@app/definitions';
import { MAX_WAIT_SECONDS, type RunProgress } from '../runs/run-progress';
import type { RunsService } from '../runs/runs.service';
import { paginationOf } from '../common/pagination';

const IDEMPOTENCY_KEY = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'The same key gives the same run, never a second one (as the Idempotency-Key header does)',
};

const runUuid = objectSchema({ run_uuid: uuidArgument('The run') }, ['run_uuid']);
const startedRun = outputOf({
  type: 'object',
  required: ['created', 'run'],
  properties: { created: { type: 'boolean', description: 'false: an earlier call with this idempotency_key started it' }, run: RUN_OUTPUT },
});

export function runTools(runs: RunsService, progress: RunProgress): StepwiseTool[] {
  return [
    {
      name: 'run_workflow',
      title: 'Run a workflow',
      description:
        'Start a run of a workflow with this trigger_output (the data its prompts read as <<trigger_output>>). It runs in the background: follow it with get_workflow_run.',
      inputSchema: objectSchema(
        {
          workflow_uuid: uuidArgument('The workflow to run'),
          trigger_output: { description: 'Any JSON value; default null' },
          idempotency_key: IDEMPOTENCY_KEY,
        },
        ['workflow_uuid'],
      ),
      outputSchema: startedRun,
      run: (userId, args) =>
        runs.startFromRequest(
          userId,
          args.workflow_uuid as string,
          { trigger_output: args.trigger_output },
          args.idempotency_key as string | undefined,
        ),
    },
    {
      name: 'get_workflow_run',
      title: 'Get a run',
      description:
        'A run with its status and every step: inputs, outputs, model calls, tool calls, tokens, errors. A step waiting for a person is awaiting_input.',
      inputSchema: runUuid,
      outputSchema: outputOf(RUN_OUTPUT),
      run: (userId, args) => runs.get(userId, args.run_uuid as string),
    },
    {
      name: 'watch_run',
      title: 'Watch a run',
      description:
        "A run's progress since the last call: its events after `after` (steps started and ended, model and tool calls, waits for a person, retried attempts, the run's end), waiting up to wait_seconds when there are none yet, and each model answer in flight so far. Call again with last_event_id as `after` until run_ended.",
      inputSchema: objectSchema(
        {
          run_uuid: uuidArgument('The run'),
          after: {
            type: 'integer',
            minimum: 0,
            maximum: 999_999_999,
            default: 0,
            description: 'The last event seen (last_event_id); 0: from the start',
          },
          wait_seconds: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 20 },
        },
        ['run_uuid'],
      ),
      outputSchema: outputOf({
        type: 'object',
        required: ['events', 'last_event_id', 'run_ended', 'answers_in_flight'],
        properties: {
          events: {
            type: 'array',
            items: { type: 'object', required: ['type', 'seq'], properties: { type: { type: 'string' }, seq: { type: 'integer' } } },
          },
          last_event_id: { type: 'integer' },
          run_ended: { type: 'boolean' },
          answers_in_flight: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                instance_uuid: { type: 'string' },
                turn: { type: 'integer' },
                attempt: { type: 'integer' },
                text: { type: 'string' },
              },
            },
          },
        },
      }),
      run: (userId, args) =>
        progress.after(
          userId,
          args.run_uuid as string,
          (args.after as number | undefined) ?? 0,
          (args.wait_seconds as number | undefined) ?? 20,
        ),
    },
    {
      name: 'list_failed_runs',
      title: 'List failed runs',
      description:
        'Your runs that failed (status failed, the default) or failed after earlier steps completed (partial_success), newest first; resume_run reruns one from the failed step.',
      inputSchema: objectSchema({
        workflow_uuid: uuidArgument('Only runs of this workflow'),
        status: { enum: [...FAILED_RUN_STATUSES], default: 'failed' },
        ...PAGINATION_ARGUMENTS,
      }),
      outputSchema: outputOf(pageOf(RUN_OUTPUT)),
      run: (userId, args) =>
        runs.list(userId, {
          ...paginationOf(args),
          status: (args.status as string | undefined) ?? 'failed',
          workflow_uuid: args.workflow_uuid as string | undefined,
        }),
    },
    {
      name: 'cancel_workflow',
      title: 'Cancel a run',
      description: 'Cancel a running or waiting run; the step in flight is interrupted and the run ends cancelled.',
      inputSchema: runUuid,
      outputSchema: outputOf({
        type: 'object',
        required: ['uuid', 'cancel_requested'],
        properties: { uuid: { type: 'string' }, status: { type: 'string' }, cancel_requested: { type: 'boolean' } },
      }),
      run: (userId, args) => runs.cancel(userId, args.run_uuid as string),
    },
    {
      name: 'resume_run',
      title: 'Resume a run',
      description:
        'Rerun a failed run from a step (default: the failed one) as a new run linked to it; earlier outputs are carried over, not paid for again. definition: original (default) or current (the workflow as edited since).',
      inputSchema: objectSchema(
        {
          run_uuid: uuidArgument('The run to resume'),
          from_step_uuid: uuidArgument('The step to start from'),
          definition: { enum: ['original', 'current'], default: 'original' },
          idempotency_key: IDEMPOTENCY_KEY,
        },
        ['run_uuid'],
      ),
      outputSchema: startedRun,
      run: (userId, { run_uuid, idempotency_key, ...options }) =>
        runs.resume(userId, run_uuid as string, options, idempotency_key as string | undefined),
    },
    {
      name: 'replay_run',
      title: 'Replay a run',
      description:
        "Run an ended run's trigger data again through target (current, the default; a version number; or a definition not saved, as create_workflow takes it) as a new run: every model call that asks exactly what the recorded run asked takes the recorded answer, no provider request; tool calls with recorded arguments take the recorded output. offline: true sends what the record lacks to the dry-run model. Compare the two with get_workflow_run on both, or GET /runs/{uuid}/replay-report.",
      inputSchema: objectSchema(
        {
          run_uuid: uuidArgument('The run to replay'),
          target: { oneOf: [{ enum: ['current'] }, { type: 'integer', minimum: 1 }, { type: 'object' }], default: 'current' },
          offline: { type: 'boolean', default: false },
          idempotency_key: IDEMPOTENCY_KEY,
        },
        ['run_uuid'],
      ),
      outputSchema: startedRun,
      run: (userId, { run_uuid, idempotency_key, ...options }) =>
        runs.replay(userId, run_uuid as string, options, idempotency_key as string | undefined),
    },
  ];
}
