// Evaluations (#30): a dataset's cases run against one or two targets by a Temporal workflow, each case a
// child run (fresh, or a replay of a recorded run), a bounded number at a time; its last activity writes the report.
import type { PreparedRun } from './engine';

export const EVALUATION_WORKFLOW_TYPE = 'evaluationWorkflow';
export const evaluationWorkflowId = (evaluationUuid: string): string => `evaluation-${evaluationUuid}`;

export interface EvaluationWorkflowInput {
  evaluation_uuid: string;
  user_id: string;
  /** How many targets and cases the evaluation has (the activities read them from its row). */
  target_count: number;
  case_count: number;
  /** Case runs in flight at once. */
  concurrency: number;
}

/** A case's run of one target: `target` and `case` are indexes into the evaluation's. */
export interface EvaluationCaseRef {
  evaluation_uuid: string;
  user_id: string;
  target: number;
  case: number;
}

/** A case whose run could not be recorded (its recorded run gone, a model no longer allowed...): the report says why. */
export interface EvaluationCaseRefusal {
  target: number;
  case: number;
  error: string;
}

export interface EvaluationActivities {
  /** Records the case's run (named by the evaluation, the target and the case: a retry finds it) and answers its workflow input. */
  prepareEvaluationRun(input: EvaluationCaseRef): Promise<{ run: PreparedRun } | { error: string }>;
  /** Ends the evaluation once: completed (its report written from the case runs), failed or cancelled. */
  endEvaluation(input: {
    evaluation_uuid: string;
    user_id: string;
    status: 'completed' | 'failed' | 'cancelled';
    refused: EvaluationCaseRefusal[];
    error_message?: string;
  }): Promise<void>;
}
