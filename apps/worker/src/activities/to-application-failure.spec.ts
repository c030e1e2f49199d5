import { ApplicationFailure } from '@temporalio/activity';
import { QueryFailedError } from 'typeorm';
import { DomainError, ErrorCode, limitedPeriods, runBudgetReached, spendLimitReached } from '@app/domain';
import { rememberSecrets } from '@app/observability';
import { ModelCallError, ToolCallError } from '@app/providers';
import { DATABASE_FAILURE_MESSAGE, RUN_BUDGET_RETRY_MS, toApplicationFailure } from './to-application-failure';

/** The activity logger's warn, recorded. */
function recordingLog() {
  const lines: { message: string; meta?: Record<string, unknown> }[] = [];
  return { lines, warn: (message: string, meta?: Record<string, unknown>) => void lines.push({ message, meta }) };
}

describe(toApplicationFailure.name, () => {
  it('makes a spent day without a run (an evaluation judge) a retryable failure whose next attempt waits for the reset', () => {
    const [day] = limitedPeriods({ daily: 1, monthly: null }, new Date('2026-11-26T23:00:00Z'));
    const failure = toApplicationFailure(spendLimitReached(day, 1, new Date('2026-11-26T23:00:00Z'), 0.2)) as ApplicationFailure;

    expect(failure).toMatchObject({ type: 'SPEND_LIMIT_REACHED', nonRetryable: false, nextRetryDelay: 3_600_000 });
  });

  it("makes a run's spent day a non-retryable failure naming the reset, which the run's workflow waits out", () => {
    const [day] = limitedPeriods({ daily: 1, monthly: null }, new Date('2026-11-26T23:00:00Z'));
    const refusal = spendLimitReached(day, 1, new Date('2026-11-26T23:00:00Z'), 0.2);
    refusal.details.run_uuid = 'a-run';

    const failure = toApplicationFailure(refusal) as ApplicationFailure;

    expect(failure).toMatchObject({
      type: 'SPEND_LIMIT_REACHED',
      nonRetryable: true,
      details: [{ resets_at: '2026-11-27T00:00:00.000Z' }],
    });
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('makes a run at its max_cost a retryable failure tried again shortly (its budget pause may raise it meanwhile)', () => {
    const failure = toApplicationFailure(runBudgetReached(0.5, 0.5, 0.01)) as ApplicationFailure;

    expect(failure).toMatchObject({ type: 'RUN_BUDGET_REACHED', nonRetryable: false, nextRetryDelay: RUN_BUDGET_RETRY_MS });
    expect(failure.message).toContain("$0.5 of the run's max_cost of $0.5");
  });

  it('keeps the type and retryability of our errors, their messages scrubbed', () => {
    const tool = toApplicationFailure(
      new ToolCallError('http_request GET https://api.example/v1?api_key=k-1234567 answered 500: token=abc', true, { kind: 'server' }),
    ) as ApplicationFailure;
    const model = toApplicationFailure(
      new ModelCallError({
        message: 'model provider answered 401: invalid key sk-proj-0123456789abcdefXYZ',
        kind: 'auth',
        retryable: false,
      }),
    ) as ApplicationFailure;
    const domain = toApplicationFailure(new DomainError(ErrorCode.NotFound, 'workflow 1 not found')) as ApplicationFailure;

    expect(tool).toMatchObject({
      type: 'Tool_server',
      nonRetryable: false,
      message: 'http_request GET https://api.example/v1?[redacted] answered 500: token=[redacted]',
    });
    expect(model.message).toBe('model provider answered 401: invalid key [redacted]');
    expect(domain).toMatchObject({ type: 'NOT_FOUND', nonRetryable: true, message: 'workflow 1 not found' });
  });

  it('turns a database error into a coded message, retryable, its detail only in the log and without the values', () => {
    const log = recordingLog();
    const driverError = Object.assign(new Error("Duplicate entry 'alice-secret-value' for key 'PRIMARY'"), {
      code: 'ER_DUP_ENTRY',
      errno: 1062,
      sqlState: '23000',
      sqlMessage: "Duplicate entry 'k' for key 'PRIMARY'",
      sql: "INSERT INTO step_outputs VALUES ('the user''s whole output')",
    });
    const error = new QueryFailedError(
      'INSERT INTO step_outputs (uuid, data) VALUES (?, ?)',
      ['u1', 'the user output, password=hunter2'],
      driverError,
    );

    const failure = toApplicationFailure(error, log) as ApplicationFailure;

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'DatabaseError', nonRetryable: false, message: DATABASE_FAILURE_MESSAGE });
    expect(log.lines).toEqual([
      {
        message: 'a database statement failed',
        meta: {
          database_error: {
            name: 'QueryFailedError',
            code: 'ER_DUP_ENTRY',
            errno: 1062,
            sql_state: '23000',
            message: "Duplicate entry 'k' for key 'PRIMARY'",
            statement: 'INSERT INTO step_outputs (uuid, data) VALUES (?, ?)',
          },
        },
      },
    ]);
    expect(JSON.stringify(log.lines)).not.toMatch(/hunter2|whole output/);
  });

  it('recognises a raw driver error, or one given as a cause, and keeps only the first words of its statement', () => {
    const log = recordingLog();
    const driver = Object.assign(new Error('Connection lost: The server closed the connection.'), {
      code: 'PROTOCOL_CONNECTION_LOST',
      sql: "UPDATE workflow_runs SET status = 'failed', error_message = 'a long message with a value' WHERE uuid = 'x'",
    });

    expect(toApplicationFailure(new Error('wrapped', { cause: driver }), log)).toMatchObject({
      type: 'DatabaseError',
      message: DATABASE_FAILURE_MESSAGE,
    });
    expect(log.lines[0].meta).toMatchObject({
      database_error: {
        code: 'PROTOCOL_CONNECTION_LOST',
        statement: expect.stringMatching(/^UPDATE workflow_runs SET status = .{0,40}…$/),
      },
    });
  });

  it('scrubs an unexpected error only when its message holds a secret, keeping it as it is otherwise', () => {
    rememberSecrets(['a-known-secret-value-42']);
    const bug = new TypeError('x is undefined');

    expect(toApplicationFailure(bug)).toBe(bug);
    expect(toApplicationFailure(new Error('could not reach a-known-secret-value-42'))).toMatchObject({
      message: 'could not reach [redacted]',
      type: 'Error',
      nonRetryable: false,
    });
  });
});
