// The evaluation workflow's activities: thin adapters over the worker's EvaluationService.
import type { EvaluationActivities } from '@app/contracts';
import type { EvaluationService } from '../evaluations/evaluation.service';
import { inActivity } from './run.activities';

export function createEvaluationActivities(evaluations: EvaluationService): EvaluationActivities {
  return {
    prepareEvaluationRun: (ref) => inActivity(() => evaluations.prepareRun(ref)),
    endEvaluation: ({ evaluation_uuid, user_id, status, refused, error_message }) =>
      inActivity(() => evaluations.end(evaluation_uuid, user_id, status, refused, error_message)),
  };
}
