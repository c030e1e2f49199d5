// Workflow side of human_input steps: the Update a person's answer arrives through, and the waits it ends.
// The API checks the answer against the step's input_schema before sending it (ajv cannot run here); the
// validator only accepts answers for a step that waits now, so a refused one never enters the history.
import { ApplicationFailure, condition, defineUpdate, setHandler } from '@temporalio/workflow';
import { HUMAN_INPUT_UPDATE, STEP_NOT_AWAITING_INPUT, type HumanInputAccepted, type HumanInputArgs, type JsonValue } from '@app/contracts';

export const humanInputUpdate = defineUpdate<HumanInputAccepted, [HumanInputArgs]>(HUMAN_INPUT_UPDATE);

export type HumanAnswer = { answered: true; input: JsonValue } | { answered: false };

interface Waiting {
  run_uuid: string;
  input?: { value: JsonValue };
}

export interface HumanInputInbox {
  /**
   * Waits for the step's answer; false `answered` when timeoutSeconds passed first (null: wait for ever).
   * The step takes answers from before `announce` (the activity that shows the run waiting) runs, so an
   * answer sent as soon as the run shows awaiting_input is never refused.
   */
  wait(runUuid: string, stepUuid: string, timeoutSeconds: number | null, announce: () => Promise<void>): Promise<HumanAnswer>;
}

/** Registers the update handler (call it once, at the workflow's start) and answers the waits. */
export function humanInputInbox(): HumanInputInbox {
  const waiting = new Map<string, Waiting>();
  setHandler(
    humanInputUpdate,
    ({ step_uuid, input }) => {
      const slot = waiting.get(step_uuid)!;
      slot.input = { value: input };
      return { run_uuid: slot.run_uuid, step_uuid, status: 'accepted' };
    },
    {
      validator: ({ step_uuid }) => {
        const slot = waiting.get(step_uuid);
        if (!slot || slot.input) {
          throw ApplicationFailure.create({
            type: STEP_NOT_AWAITING_INPUT,
            message: `Step ${step_uuid} is not waiting for input`,
            nonRetryable: true,
          });
        }
      },
    },
  );
  return {
    async wait(runUuid, stepUuid, timeoutSeconds, announce) {
      const slot: Waiting = { run_uuid: runUuid };
      waiting.set(stepUuid, slot);
      try {
        await announce();
        const arrived = () => slot.input !== undefined;
        const answered = timeoutSeconds ? await condition(arrived, timeoutSeconds * 1000) : (await condition(arrived), true);
        return answered ? { answered: true, input: slot.input!.value } : { answered: false };
      } finally {
        waiting.delete(stepUuid);
      }
    },
  };
}
