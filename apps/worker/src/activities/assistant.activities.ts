import type { AssistantActivities } from '@app/contracts';
import type { AssistantModelService } from '../assistant/assistant-model.service';
import type { AssistantStagesService } from '../assistant/assistant-stages.service';
import { inActivity } from './run.activities';

export function createAssistantActivities(model: AssistantModelService, stages: AssistantStagesService): AssistantActivities {
  return {
    recordUserMessage: ({ text, ...ref }) => inActivity(async () => void (await stages.recordUserMessage(ref, ref.turn, text))),
    clarify: (ref) => inActivity((scope) => model.clarify(ref, ref.turn, scope)),
    generate: (ref) => inActivity((scope) => model.generate(ref, scope)),
    callAssistantTool: ({ call, ...ref }) => inActivity(async () => void (await stages.callTool(ref, call))),
    checkCandidate: ({ target_uuid, ...ref }) => inActivity(() => stages.checkCandidate(ref, target_uuid)),
    prepareDryRun: ({ target_uuid, run_uuid, ...ref }) => inActivity(() => stages.prepareDryRun(ref, target_uuid, run_uuid)),
    recordDryRun: ({ outcome, ...ref }) => inActivity(() => stages.recordDryRun(ref, outcome)),
    saveCandidate: ({ target_uuid, keeps_open, ...ref }) =>
      inActivity(async () => void (await stages.saveCandidate(ref, target_uuid, keeps_open === true))),
    failTurn: ({ error_code, message, is_recoverable, ...ref }) =>
      inActivity(async () => void (await stages.failTurn(ref, error_code, message, is_recoverable === true))),
    closeSession: ({ error_code, message, ...ref }) => inActivity(async () => void (await stages.closeSession(ref, error_code, message))),
  };
}
