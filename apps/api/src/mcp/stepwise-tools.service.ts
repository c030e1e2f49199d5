// Stepwise's tools as the API offers them: the MCP server (/mcp), the HTTP shims (/api/v1/mcp/tools and
// /invoke). Each tool calls the service its REST route calls.
import { Injectable } from '@nestjs/common';
import { catalogTools, StepwiseToolSet, ToolListing, WorkflowsService } from '@app/definitions';
import { AssistantTurns } from '../assistant/assistant-turns';
import { RunProgress } from '../runs/run-progress';
import { RunsService } from '../runs/runs.service';
import { SchedulesService } from '../schedules/schedules.service';
import { EvaluationsService } from '../evaluations/evaluations.service';
import { assistantTools } from './assistant-tools';
import { evaluationTools } from './evaluation-tools';
import { runTools } from './run-tools';
import { workflowTools } from './workflow-tools';

@Injectable()
export class StepwiseToolsService extends StepwiseToolSet {
  constructor(
    workflows: WorkflowsService,
    schedules: SchedulesService,
    runs: RunsService,
    progress: RunProgress,
    listing: ToolListing,
    turns: AssistantTurns,
    evaluations: EvaluationsService,
  ) {
    super([
      ...workflowTools(workflows, schedules),
      ...runTools(runs, progress),
      ...evaluationTools(evaluations),
      ...catalogTools(listing),
      ...assistantTools(turns),
    ]);
  }
}
