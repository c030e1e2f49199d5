import { Injectable } from '@nestjs/common';
import { RunRepository, WorkflowRepository } from '@app/persistence';
import { ApplicationFailure } from '@temporalio/activity';
import { EgressPolicy, fetchText, standardWebhookHeaders, ToolCallError, type FetchedText } from '@app/providers';
import { SecretBox } from '@app/security';
import type { ActivityScope } from './activity-scope';

const TIMEOUT_MS = 10_000;
/** The receiver's answer is not used: a little of it is read so the connection can be reused, the rest dropped. */
const RECEIVER_BODY_BYTES = 4096;

/** A run's end, POSTed as JSON signed the Standard Webhooks way to the workflow's notify_url; each attempt is recorded on the run. */
@Injectable()
export class NotificationService {
  constructor(
    private readonly runs: RunRepository,
    private readonly workflows: WorkflowRepository,
    private readonly egress: EgressPolicy,
    private readonly secrets: SecretBox,
  ) {}

  async notify(runUuid: string, userId: string, url: string, scope: ActivityScope): Promise<void> {
    const run = await this.runs.find(userId, runUuid);
    if (!run) return;
    const last = [...run.steps].reverse().find((step) => step.output);
    const body = JSON.stringify({
      run_uuid: run.uuid,
      workflow_uuid: run.workflow_uuid,
      workflow_name: run.workflow_name,
      status: run.status,
      error_message: run.error_message,
      final_output: last?.output ? { output_id: last.output.uuid, summary: last.output.summary } : null,
      tokens: { prompt: run.prompt_tokens, completion: run.completion_tokens, total: run.total_tokens },
      finished_at: run.finished_at,
    });
    const stored = (await this.workflows.find(userId, run.workflow_uuid))?.notify_secret;
    const secret = stored ? this.secrets.reveal(stored) : null;
    // One id per run: a receiver that saw it already (a retried delivery) can drop the repeat.
    const signed = secret ? standardWebhookHeaders(secret, `msg_${run.uuid}`, body) : {};
    const record = (fields: { status: 'delivered' | 'failed'; http_status: number | null; error: string | null }) =>
      this.runs.recordNotification(runUuid, { url, attempts: scope.attempt, at: new Date().toISOString(), ...fields });
    let response: FetchedText;
    try {
      const request = { method: 'POST', headers: { 'content-type': 'application/json', 'x-stepwise-run': run.uuid, ...signed }, body };
      response = await fetchText(url, request, {
        timeoutMs: TIMEOUT_MS,
        signal: scope.signal,
        maxBytes: RECEIVER_BODY_BYTES,
        what: 'notification',
        fetch: this.egress.fetch,
      });
    } catch (error) {
      await record({ status: 'failed', http_status: null, error: (error as Error).message });
      // A refused address stays refused: no point in retrying. A timeout or a broken connection is retried.
      throw error instanceof ToolCallError && error.kind === 'denied'
        ? ApplicationFailure.nonRetryable(error.message, 'EgressDenied')
        : error;
    }
    if (response.status < 200 || response.status > 299) {
      await record({ status: 'failed', http_status: response.status, error: `receiver answered ${response.status}` });
      throw new Error(`notification receiver answered ${response.status}`);
    }
    await record({ status: 'delivered', http_status: response.status, error: null });
  }
}
