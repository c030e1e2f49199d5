import type { ModelCallAttempt } from './call-attempts';
import type { NewOutput } from './output.repository';
import type { LoopState, RunEnding, StepInstanceRecord } from './run.records';

/** A step's completion: its output, and with an LLM step's its messages and its last call's end. */
export interface StepCompletion {
  instance_uuid: string;
  output: NewOutput | null;
  messages?: unknown[];
  call?: ModelCallAttempt;
}

/** A step instance's row through its life (the worker's activities): started, waiting, completed or failed; a loop's iteration rows. */
export abstract class StepRepository {
  abstract instance(instanceUuid: string): Promise<StepInstanceRecord | null>;
  /**
   * Marks a step running (keeps the first started_at) and counts the attempt. False when the row was not
   * pending or running (an earlier attempt ended it).
   */
  abstract startStep(instanceUuid: string, inputData: unknown): Promise<boolean>;
  /**
   * Starts the step as startStep does, with its messages, and its first model call's attempt (its `running` row,
   * which refers to them), in one transaction: one commit. `apart`: the messages in a statement of their own (a
   * large prompt's: its two copies in one statement could pass the server's packet limit, 16 MiB by default).
   * Null, and nothing written, when the row was not open; else the attempt the call's row went under.
   * `after`: the completion of the step before (a chain's steps sharing an activity), written in the same
   * transaction where it can be, else on its own first; whatever the answer, it is written once this returns.
   */
  abstract startStepWithCall(
    instanceUuid: string,
    inputData: unknown,
    messages: { list: unknown[]; apart: boolean },
    call: ModelCallAttempt,
    after?: StepCompletion,
  ): Promise<number | null>;
  /** The step's chat messages so far (an LLM step's, an agent's transcript; column model_messages): the model calls' audit refers to them by position. */
  abstract saveMessages(instanceUuid: string, messages: unknown[]): Promise<void>;
  /**
   * Starts the step as startStep does and gives it its first messages, unless it holds some already (a start run
   * again, as a local activity after its worker died, keeps what the turns after it wrote), in one transaction
   * unless `apart` (a large prompt's, as in startStepWithCall: then one statement each): false when the row kept its
   * messages.
   */
  abstract startStepBeginningMessages(
    instanceUuid: string,
    inputData: unknown,
    messages: { list: unknown[]; apart: boolean },
  ): Promise<boolean>;
  /** The step's chat messages alone (not the rest of its row); null when it has none or no row. */
  abstract messagesOf(instanceUuid: string): Promise<unknown[] | null>;
  /** How many messages the step has, and the one at `position` if any, without reading the others. */
  abstract messageAt(instanceUuid: string, position: number): Promise<{ length: number; message: unknown }>;
  /**
   * Adds `message` at `position` when the step has exactly `position` messages, in one statement whatever their
   * number; false (nothing written) otherwise.
   */
  abstract appendMessage(instanceUuid: string, position: number, message: unknown): Promise<boolean>;
  /**
   * Stores the output and completes the step, summing its model calls' tokens, in one transaction; with
   * `messages`, its chat messages; with `call`, the end of its last model call's attempt (whose tokens count).
   */
  abstract completeStep(instanceUuid: string, output: NewOutput | null, closing?: Pick<StepCompletion, 'messages' | 'call'>): Promise<void>;
  /**
   * Completes the step as completeStep does and ends its run (RunRepository.end) in the same transaction: a
   * chain's last step. True when this end was the run's (it was still in flight).
   */
  abstract completeStepEndingRun(completion: StepCompletion, ending: RunEnding): Promise<boolean>;
  /** Completes a step whose output is one stored already (its latest iteration's or execution's): referenced, not copied. */
  abstract completeStepWithOutput(instanceUuid: string, outputId: string): Promise<void>;
  /** Fails a step that has not completed. */
  abstract failStep(instanceUuid: string, errorMessage: string): Promise<void>;
  /** A human_input step starts waiting: its row and the run's are marked awaiting_input, the question on the step. */
  /**
   * A run a sub_workflow step started waits for a person (`waiting`), or no longer does: the runs above it and
   * their sub_workflow steps' rows show awaiting_input too, or running again once nothing beneath them waits.
   */
  abstract callersWait(runUuid: string, waiting: boolean): Promise<void>;
  abstract awaitInput(runUuid: string, instanceUuid: string, inputData: unknown): Promise<void>;
  /** The wait of a human_input step is over: the run is running again once no other step of it waits. */
  abstract inputReceived(runUuid: string): Promise<void>;
  /** Creates an iteration's row under its step's row; a retried activity finds it there and goes on. */
  abstract openExecution(parentInstanceUuid: string, instanceUuid: string, index: number): Promise<void>;
  /**
   * A loop's failed iterations in index order: every one's index, and its error (cut to `errorChars`) for the
   * first `withErrors` of them; the rest carry none, so what is read stays bounded whatever their number.
   */
  abstract failedExecutions(
    parentInstanceUuid: string,
    withErrors: number,
    errorChars: number,
  ): Promise<{ index: number; error_message?: string }[]>;
  /** Records on a looping step's row how its loop ended. */
  abstract saveLoopState(instanceUuid: string, state: LoopState): Promise<void>;
}
