// The walk's guard rails: max_steps and repeated input before each execution, timeout_seconds
// between waves, and with a human hand-off step a person who decides instead of the run failing.
import type { StepDefinition } from '@app/contracts';
import type { Activation } from './walk-plan';
import { executionCount, restartGuardRails, type WalkState } from './walk-state';

/** Whether `activation` of `step` may run; when not, the guard rail that refused it is the walk's. */
export function withinGuardRails(state: WalkState, step: StepDefinition, activation: Activation): boolean {
  const { plan, news } = state;
  if (executionCount(state) - state.budgetFrom >= plan.maxSteps) {
    state.guard ??= {
      type: 'MaxStepsReached',
      message: `Guard max_steps reached: the run made ${plan.maxSteps} step executions without ending`,
      rail: { rail: 'max_steps', step_uuid: step.uuid, step_name: step.name },
    };
    return false;
  }
  // Tool results and a person's answer are new input; otherwise some step's output must have changed.
  if (!activation.handoff && !activation.continues && !activation.reason && !news.hasNewInput(step.uuid)) {
    state.guard ??= {
      type: 'RepeatedInput',
      message: `Guard repeated_input: step "${step.name}" was reached again while no step's output had changed since its last run`,
      rail: { rail: 'repeated_input', step_uuid: step.uuid, step_name: step.name },
    };
    return false;
  }
  return true;
}

/** Between waves: a walk with steps still to run past its timeout_seconds ends (time waiting for people aside). */
export function checkTimeout(state: WalkState, stepsLeft: boolean): void {
  const { plan } = state;
  // Workflow time (the task's start), so the check replays the same.
  if (!state.guard && stepsLeft && Date.now() - state.clockFrom - state.scope.counters.waitedForPeopleMs > plan.timeoutSeconds * 1000) {
    state.guard = {
      type: 'TimeoutReached',
      message: `Guard timeout_seconds reached: the run walked for more than ${plan.timeoutSeconds} s without ending`,
      rail: { rail: 'timeout_seconds', step_uuid: null, step_name: null },
    };
  }
}

/** The wave that asks the person at `handoffStep` instead; the guard rails start again after the answer. */
export function handToPerson(state: WalkState, handoffStep: string): Activation[] {
  const { message, rail } = state.guard!;
  const wave = [{ step_uuid: handoffStep, previous_step_uuid: null, reason: message, guard_rail: rail }];
  state.guard = null;
  restartGuardRails(state);
  return wave;
}
