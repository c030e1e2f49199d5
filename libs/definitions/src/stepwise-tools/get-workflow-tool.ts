// get_workflow, which the MCP server offers beside the other workflow tools and the assistant's model
// calls to read the workflow it edits.
import type { WorkflowsService } from '../workflows.service';
import { objectSchema, outputOf, uuidArgument, WORKFLOW_OUTPUT, type StepwiseTool } from './stepwise-tool';

export function getWorkflowTool(workflows: WorkflowsService): StepwiseTool {
  return {
    name: 'get_workflow',
    title: 'Get a workflow',
    description: 'One workflow with its steps, trigger and graph in full.',
    inputSchema: objectSchema({ workflow_uuid: uuidArgument('The workflow') }, ['workflow_uuid']),
    outputSchema: outputOf(WORKFLOW_OUTPUT),
    run: (userId, args) => workflows.details(userId, args.workflow_uuid as string),
  };
}
