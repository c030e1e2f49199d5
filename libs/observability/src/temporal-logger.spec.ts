import { ApplicationFailure } from '@temporalio/common';
import { errorFields } from './error-fields';
import { temporalFields } from './temporal-logger';

describe(temporalFields.name, () => {
  it('names the run of a run-<uuid> workflow and renames the SDK fields to snake_case', () => {
    const uuid = '6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f';
    expect(temporalFields({ workflowId: `run-${uuid}`, activityType: 'runLlmStep', attempt: 2, taskQueue: 'q', activityId: '7' })).toEqual({
      workflow_id: `run-${uuid}`,
      run_uuid: uuid,
      activity_type: 'runLlmStep',
      attempt: 2,
      task_queue: 'q',
      activity_id: '7',
    });
    expect(temporalFields({ workflowId: 'schedule-x' })).toEqual({ workflow_id: 'schedule-x' });
  });
});

describe(errorFields.name, () => {
  it('keeps a business failure to its type and message, on one line', () => {
    const failure = ApplicationFailure.nonRetryable('Step "a" failed:\nthe model refused', 'StepFailed');
    expect(errorFields(failure)).toEqual({
      name: 'ApplicationFailure',
      message: 'Step "a" failed: | the model refused',
      type: 'StepFailed',
      non_retryable: true,
    });
  });

  it('keeps the stack of what looks like a bug', () => {
    expect(errorFields(new TypeError('x is undefined'))).toMatchObject({
      name: 'TypeError',
      stack: expect.stringContaining('TypeError: x is undefined'),
    });
  });

  it('recognises a failure copied out of workflow code by its stack', () => {
    expect(errorFields({ message: 'boom', stack: 'ApplicationFailure: boom\n    at x' })).toEqual({ message: 'boom', name: undefined });
  });
});
