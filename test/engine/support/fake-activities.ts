// Fake RunActivities for the engine's workflow specs: each call is recorded (with the workflow execution it
// came from, so a spec sees where the run continued as new); only the activities a spec hands in answer,
// and any other call fails its activity for good and is listed in `unexpected`, which every run checks.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RunActivities, StepResultRef } from '@app/contracts';
import { Waiters } from '../../support/waiters';

type Name = keyof RunActivities;
type InputOf<N extends Name> = Parameters<RunActivities[N]>[0];
type OutputOf<N extends Name> = Awaited<ReturnType<RunActivities[N]>>;

/** What a spec answers: a handler per activity it expects, from the call's input. */
export type Handlers = { [N in Name]?: (input: InputOf<N>) => OutputOf<N> | Promise<OutputOf<N>> };

export interface Call<N extends Name = Name> {
  name: N;
  input: InputOf<N>;
  /** The workflow execution that called it: continue-as-new starts another under the same workflow id. */
  run_id: string;
  /** Run as a local activity (on the workflow's worker, no task-queue round trip), not a queued one. */
  local: boolean;
}

// Every activity of the contract, so that an unexpected one is recorded instead of "not registered" (which
// Temporal would retry for ever); the type below fails to compile when the contract gains one.
const NAMES = [
  'prepareScheduledRun',
  'runLlmStep',
  'startAgentStep',
  'agentTurn',
  'callTool',
  'completeAgentStep',
  'runStopChecker',
  'handOffToolCalls',
  'startToolExecutor',
  'completeToolExecutor',
  'continueAgentStep',
  'startLoop',
  'completeLoop',
  'awaitHumanInput',
  'answerHumanInput',
  'expireHumanInput',
  'startSubWorkflow',
  'completeSubWorkflow',
  'startWorkflowTool',
  'completeWorkflowTool',
  'evaluateEdgeConditions',
  'closeGraphStep',
  'openConversation',
  'receiveMessage',
  'answerTurn',
  'failStep',
  'finishRun',
  'tokensUsed',
  'runSpend',
  'pauseForBudget',
  'resumeAfterBudget',
  'notifyRunEnd',
] as const satisfies readonly Name[];
const _everyName: [Exclude<Name, (typeof NAMES)[number]>] extends [never] ? true : never = true;

const WAIT_MS = 30_000;

export class FakeActivities {
  readonly calls: Call[] = [];
  /** Calls no handler was given for: a run with any fails its spec. */
  readonly unexpected: string[] = [];
  private readonly waiters = new Waiters('fake activities');

  constructor(private readonly handlers: Handlers) {}

  /** The object a worker registers: every activity name, each recording its call first. */
  get activities(): RunActivities {
    return Object.fromEntries(NAMES.map((name) => [name, (input: unknown) => this.receive(name, input)])) as unknown as RunActivities;
  }

  /** The inputs `name` was called with, in order. */
  inputsOf<N extends Name>(name: N): InputOf<N>[] {
    return this.callsTo(name).map((call) => call.input);
  }

  callsTo<N extends Name>(name: N): Call<N>[] {
    return this.calls.filter((call): call is Call<N> => call.name === name);
  }

  /** Resolves once `name` has been called `times` times. */
  called(name: Name, times = 1): Promise<void> {
    return this.waiters.until(
      () => this.callsTo(name).length >= times,
      WAIT_MS,
      () => `${name} called ${this.callsTo(name).length} time(s), not ${times}`,
    );
  }

  private async receive(name: Name, input: unknown): Promise<unknown> {
    const { info } = Context.current();
    this.calls.push({ name, input, run_id: info.workflowExecution?.runId ?? 'none', local: info.isLocal } as Call);
    this.waiters.notify();
    const handler = this.handlers[name] as ((input: unknown) => unknown) | undefined;
    try {
      return handler ? await handler(input) : unexpected(name);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === UNEXPECTED) this.unexpected.push(error.message);
      throw error;
    }
  }
}

const UNEXPECTED = 'UnexpectedActivity';

/** Fails the activity for good and the spec's run with it (a handler's answer to a call it does not expect). */
export function unexpected(what: string): never {
  throw ApplicationFailure.nonRetryable(`The spec did not expect ${what}`, UNEXPECTED);
}

type LlmAnswer = (input: InputOf<'runLlmStep'>, nth: number) => StepResultRef | Promise<StepResultRef>;

/** runLlmStep answered by step name (`nth`: 1 for the step's first call); a step not named is unexpected. */
export function llmAnswers(answers: Record<string, LlmAnswer>): Handlers['runLlmStep'] {
  const counts = new Map<string, number>();
  return (input) => {
    const answer = answers[input.step.name] ?? unexpected(`runLlmStep for step "${input.step.name}"`);
    const nth = (counts.get(input.step.name) ?? 0) + 1;
    counts.set(input.step.name, nth);
    return answer(input, nth);
  };
}

/** A bookkeeping activity that has nothing to answer: its call is recorded, that is all. */
export const recorded = async (): Promise<void> => undefined;

/** The bookkeeping every run may do as it ends: close its steps' rows, record failed ones and its end. */
export const runEnd = (): Handlers => ({ finishRun: recorded, closeGraphStep: recorded, failStep: recorded });

/**
 * An activity that runs until the run cancels it: heartbeats (how a queued activity learns of the
 * cancellation) and answers the cancellation as the worker's activities do, by throwing it.
 */
export async function untilCancelled(): Promise<never> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), 200);
  try {
    await context.cancelled;
    throw new Error('unreachable: `cancelled` only rejects');
  } finally {
    clearInterval(beat);
  }
}
