// The MCP evaluation tools (#30): run a dataset against the workflow (and a baseline version), read the report.
import { objectSchema, outputOf, uuidArgument, type StepwiseTool } from '@app/definitions';
import type { EvaluationsService } from '../evaluations/evaluations.service';

const TARGET = { oneOf: [{ enum: ['current'] }, { type: 'integer', minimum: 1 }] };
const evaluation = outputOf({
  type: 'object',
  required: ['uuid', 'status'],
  properties: {
    uuid: { type: 'string' },
    status: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
    report: { description: 'Once completed: per target its cases and assertions; with a baseline, regressions first' },
  },
});

export function evaluationTools(evaluations: EvaluationsService): StepwiseTool[] {
  return [
    {
      name: 'run_evaluation',
      title: 'Evaluate a workflow on a dataset',
      description:
        "Run every case of one of the workflow's datasets (POST /workflows/{uuid}/datasets saves them) against target (current, the default, or a version number), and against a baseline version when `against` is given: what passed there and fails on target is a regression. Runs in the background: follow it with get_evaluation.",
      inputSchema: objectSchema(
        {
          workflow_uuid: uuidArgument('The workflow'),
          dataset: { type: 'string', minLength: 1, maxLength: 100 },
          target: TARGET,
          against: TARGET,
        },
        ['workflow_uuid', 'dataset'],
      ),
      outputSchema: evaluation,
      run: (userId, { workflow_uuid, ...body }) => evaluations.start(userId, workflow_uuid as string, body),
    },
    {
      name: 'get_evaluation',
      title: 'Get an evaluation',
      description:
        "An evaluation's status and, once completed, its report: each case's assertions with the values they saw, and regressions first.",
      inputSchema: objectSchema({ evaluation_uuid: uuidArgument('The evaluation') }, ['evaluation_uuid']),
      outputSchema: evaluation,
      run: (userId, args) => evaluations.get(userId, args.evaluation_uuid as string),
    },
  ];
}
