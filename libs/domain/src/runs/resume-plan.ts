// Which steps a resumed run carries over from its parent and where it starts running again.
import type { GraphDefinition, StepDefinition, StepStatus, WorkflowDefinition } from '@app/contracts';
import { DomainError, ErrorCode } from '../errors';

/** A step instance of the parent run, as far as resuming needs it. */
export interface ParentStep {
  step_definition_uuid: string;
  status: StepStatus;
  output_id: string | null;
}

export interface ResumePlan {
  from_step_uuid: string;
  /** The steps before `from_step_uuid`, in order, with the parent's output each one keeps. */
  carried: { step_uuid: string; output_id: string | null }[];
  /** The last carried step with an output: $previous_output of the first step run again. */
  previous_step_uuid: string | null;
}

const FIELD = 'from_step_uuid';

/** The step to resume from when none is named: the parent's failed step, else its first step that did not complete. */
function defaultStart(parent: ParentStep[]): string {
  const start = parent.find((step) => step.status === 'failed') ?? parent.find((step) => step.status !== 'completed');
  if (!start)
    throw new DomainError(ErrorCode.NothingToResume, 'Every step of the run completed: name the step to resume from in from_step_uuid', {
      field: FIELD,
    });
  return start.step_definition_uuid;
}

/**
 * Plans a resume of a run whose steps were `parent` over the chosen definition: from a step of a chain,
 * every step before it must have completed in the parent run; from a node of a graph, every step that
 * completed in the parent is carried. Carried outputs are referenced rather than computed again.
 */
export function planResume(
  definition: Pick<WorkflowDefinition, 'steps' | 'graph'>,
  parent: ParentStep[],
  fromStepUuid?: string,
): ResumePlan {
  const from = (fromStepUuid ?? defaultStart(parent)).toLowerCase();
  const steps = definition.steps;
  const start = steps.findIndex((step) => step.uuid === from);
  if (start < 0) {
    throw new DomainError(ErrorCode.StepNotInDefinition, `Step ${from} is not in the definition the run resumes with`, {
      field: FIELD,
      step_uuid: from,
    });
  }
  if (definition.graph) return planGraphResume(definition.graph, steps, parent, from);
  const carried = steps.slice(0, start).map((step) => {
    const done = parent.find((instance) => instance.step_definition_uuid === step.uuid && instance.status === 'completed');
    if (!done) {
      throw new DomainError(
        ErrorCode.StepNotCompleted,
        `Step "${step.name}" did not complete in the run being resumed, so there is no output to carry over`,
        {
          field: FIELD,
          step_uuid: step.uuid,
        },
      );
    }
    return { step_uuid: step.uuid, output_id: done.output_id, type: step.type };
  });
  const previous = [...carried].reverse().find((step) => step.type !== 'stop_checker' && step.output_id);
  return {
    from_step_uuid: from,
    carried: carried.map(({ step_uuid, output_id }) => ({ step_uuid, output_id })),
    previous_step_uuid: previous?.step_uuid ?? null,
  };
}

/** In a graph the walk starts at `from`: the steps that completed in the parent keep their outputs, and a completed step with an edge into `from` gives its $previous_output. */
function planGraphResume(graph: GraphDefinition, steps: StepDefinition[], parent: ParentStep[], from: string): ResumePlan {
  const completed = new Map(
    parent.filter((instance) => instance.status === 'completed').map((instance) => [instance.step_definition_uuid, instance.output_id]),
  );
  const carried = steps
    .filter((step) => step.uuid !== from && completed.has(step.uuid))
    .map((step) => ({ step_uuid: step.uuid, output_id: completed.get(step.uuid)! }));
  const feeder = graph.edges.find((edge) => edge.target_step_uuid === from && completed.get(edge.source_step_uuid));
  return { from_step_uuid: from, carried, previous_step_uuid: feeder?.source_step_uuid ?? null };
}
