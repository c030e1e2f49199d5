// Every request body a route checks with one JSON Schema: the OpenAPI document shows each as that schema, and
// its coverage spec holds every documented body to the one its route validates. (A workflow's definition is
// checked by the definition parser, each part by its own schema: STEP_SCHEMAS, GRAPH_SCHEMA, TRIGGER_SCHEMAS.)
import { ASSISTANT_MESSAGE_BODY, ASSISTANT_SESSION_BODY } from './assistant/assistant-bodies';
import { MCP_SERVER_BODY, MCP_SERVER_PATCH_BODY } from './mcp/parse-mcp-server';
import { DATASET_BODY, EVALUATION_BODY } from './evaluations/dataset';
import type { RequestBody } from './request-body';
import { BUDGET_APPROVAL_BODY, HUMAN_ANSWER_BODY, MESSAGE_BODY, REPLAY_BODY, RESUME_BODY, RUN_START_BODY } from './runs/run-bodies';
import { BACKFILL_BODY, SCHEDULE_BODY, SCHEDULE_PATCH_BODY } from './schedules/parse-schedule';
import { TOOL_BODY } from './tools/parse-tool';
import { VERSION_RESTORE_BODY } from './definition/versions';
import { SPEND_LIMITS_BODY } from './costs/spend-limit-body';

export const REQUEST_BODIES: readonly RequestBody<unknown>[] = [
  RUN_START_BODY,
  RESUME_BODY,
  REPLAY_BODY,
  DATASET_BODY,
  EVALUATION_BODY,
  BUDGET_APPROVAL_BODY,
  HUMAN_ANSWER_BODY,
  MESSAGE_BODY,
  TOOL_BODY,
  SCHEDULE_BODY,
  SCHEDULE_PATCH_BODY,
  BACKFILL_BODY,
  MCP_SERVER_BODY,
  MCP_SERVER_PATCH_BODY,
  ASSISTANT_SESSION_BODY,
  ASSISTANT_MESSAGE_BODY,
  VERSION_RESTORE_BODY,
  SPEND_LIMITS_BODY,
];
