// What the assistant's model writes, checked by the one definition validator: its issues, with the
// fields named, are what the next correction round tells the model.
import { ASSISTANT_MAX_STEPS, type WorkflowDefinition } from '@app/contracts';
import { modelPolicyIssues, type ModelPolicy } from '../definition/model-policy';
import { parseWorkflowInput } from '../definition/parse';
import { SCHEMA_LIMITS, type SchemaLimits } from '../definition/schema-bounds';
import type { Issue } from '../definition/issues';
import { DomainError, ErrorCode } from '../errors';

export type CandidateCheck = { ok: true; definition: WorkflowDefinition } | { ok: false; issues: Issue[] };

/** The JSON object in a model's answer, with or without a markdown fence around it. */
export function candidateOf(content: string | null): { value: unknown } | { issue: Issue } {
  const text = (content ?? '').trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1] : text.slice(Math.max(0, text.indexOf('{')), text.lastIndexOf('}') + 1);
  try {
    const value: unknown = JSON.parse(body);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value };
  } catch {
    // Told to the model below.
  }
  return {
    issue: { code: ErrorCode.ValidationFailed, field: 'body', message: 'the answer must be one JSON object: the workflow definition' },
  };
}

function issuesOf(error: unknown): Issue[] {
  if (!(error instanceof DomainError)) throw error;
  const listed = error.details.errors as Issue[] | undefined;
  return listed?.length ? listed : [{ code: error.code, field: error.details.field ?? 'body', message: error.message }];
}

/** An assistant's workflow's most steps (ASSISTANT_MAX_STEPS) and what its schemas may cost (SCHEMA_*). */
export interface CandidateLimits {
  maxSteps: number;
  schema: SchemaLimits;
}

/**
 * The candidate through parseWorkflowInput (what POST /workflows runs), then the limits of an assistant's
 * workflow, the models allowed and the tools the user has: every issue, each naming its field.
 */
export function checkCandidate(
  candidate: unknown,
  targetUuid: string,
  policy: ModelPolicy,
  knownTools: ReadonlySet<string>,
  newUuid: () => string,
  limits: CandidateLimits = { maxSteps: ASSISTANT_MAX_STEPS, schema: SCHEMA_LIMITS },
): CandidateCheck {
  let definition: WorkflowDefinition;
  try {
    const input = parseWorkflowInput({ ...(candidate as object), uuid: targetUuid }, newUuid, '', limits.schema);
    definition = { ...input, uuid: targetUuid };
  } catch (error) {
    return { ok: false, issues: issuesOf(error) };
  }
  const issues = [...modelPolicyIssues(definition.steps, policy), ...toolIssues(definition, knownTools)];
  if (definition.steps.length > limits.maxSteps)
    issues.push({ code: ErrorCode.ValidationFailed, field: 'steps', message: `a workflow has at most ${limits.maxSteps} steps` });
  return issues.length ? { ok: false, issues } : { ok: true, definition };
}

function toolIssues(definition: WorkflowDefinition, knownTools: ReadonlySet<string>): Issue[] {
  return definition.steps.flatMap((step, i) =>
    step.type === 'custom_agent'
      ? step.tools.flatMap((tool, j) =>
          knownTools.has(tool)
            ? []
            : [
                {
                  code: ErrorCode.UnknownTool,
                  field: `steps[${i}].tools[${j}]`,
                  message: `no tool named ${tool}: list_tools names the ones available`,
                },
              ],
        )
      : [],
  );
}

/** What the model reads back: one line per issue, code, field and message. */
export function issuesFeedback(issues: Issue[]): string {
  const lines = issues.map((issue) => `- ${issue.code} at ${issue.field}: ${issue.message}`);
  return `The workflow you wrote is not valid. Fix these issues and answer the whole corrected workflow JSON:\n${lines.join('\n')}`;
}
