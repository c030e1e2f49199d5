import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '@app/domain';
import { ModelCallError, ToolCallError } from '@app/providers';
import { StepError } from '../steps/step-error';

/** The one place worker errors become Temporal failures: retryable or not, with a type to read in the UI. */
export function toApplicationFailure(error: unknown): unknown {
  if (error instanceof ModelCallError) {
    return ApplicationFailure.create({
      message: error.message,
      type: `Model_${error.kind}`,
      nonRetryable: !error.retryable,
      ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
    });
  }
  if (error instanceof ToolCallError) return ApplicationFailure.create({ message: error.message, type: `Tool_${error.kind}`, nonRetryable: !error.retryable });
  if (error instanceof StepError) return ApplicationFailure.nonRetryable(error.message, error.type);
  if (error instanceof DomainError) return ApplicationFailure.nonRetryable(error.message, error.code);
  return error; // unexpected (e.g. the database is away): Temporal retries it
}
