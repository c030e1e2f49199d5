import { HttpStatus } from '@nestjs/common';
import { ErrorCode } from '@app/domain';

/** Every domain error code has exactly one HTTP status; the compiler checks the list is complete. */
export function statusOf(code: ErrorCode): HttpStatus {
  switch (code) {
    case ErrorCode.InvalidBody:
      return HttpStatus.BAD_REQUEST;
    case ErrorCode.PayloadTooLarge:
      return HttpStatus.PAYLOAD_TOO_LARGE;
    case ErrorCode.Unauthorized:
    case ErrorCode.WebhookSignatureInvalid:
    case ErrorCode.WebhookSignatureStale:
    case ErrorCode.WebhookReplayed:
      return HttpStatus.UNAUTHORIZED;
    case ErrorCode.NotFound:
      return HttpStatus.NOT_FOUND;
    case ErrorCode.RateLimited:
    case ErrorCode.TooManyRunsInFlight:
      return HttpStatus.TOO_MANY_REQUESTS;
    case ErrorCode.TemporalUnavailable:
      return HttpStatus.SERVICE_UNAVAILABLE;
    case ErrorCode.McpServerUnavailable:
      return HttpStatus.BAD_GATEWAY;
    case ErrorCode.Conflict:
    case ErrorCode.RunNotActive:
    case ErrorCode.RunStillRunning:
    case ErrorCode.ToolDrift:
    case ErrorCode.StepNotAwaitingInput:
    case ErrorCode.ConversationBusy:
    case ErrorCode.NotConversational:
    case ErrorCode.AssistantBusy:
    case ErrorCode.AssistantClosed:
      return HttpStatus.CONFLICT;
    case ErrorCode.ValidationFailed:
    case ErrorCode.UnknownStepType:
    case ErrorCode.UnknownTriggerType:
    case ErrorCode.DuplicateStepName:
    case ErrorCode.DuplicateStepUuid:
    case ErrorCode.UnknownStepReference:
    case ErrorCode.ForwardStepReference:
    case ErrorCode.InvalidJsonPath:
    case ErrorCode.InvalidOutputSchema:
    case ErrorCode.InvalidPlaceholder:
    case ErrorCode.InvalidLoop:
    case ErrorCode.NotAPermutation:
    case ErrorCode.ImportUnparseable:
    case ErrorCode.UnknownTool:
    case ErrorCode.UnknownGraphNode:
    case ErrorCode.InvalidEdge:
    case ErrorCode.DuplicateEdge:
    case ErrorCode.DuplicateRoute:
    case ErrorCode.UnreachableStep:
    case ErrorCode.NothingToResume:
    case ErrorCode.StepNotInDefinition:
    case ErrorCode.StepNotCompleted:
    case ErrorCode.InvalidHumanInput:
    case ErrorCode.EgressDenied:
    case ErrorCode.ModelNotAllowed:
    case ErrorCode.ProviderNotConfigured:
    case ErrorCode.UnknownMcpServer:
    case ErrorCode.McpStdioDisabled:
      return HttpStatus.UNPROCESSABLE_ENTITY;
    default: {
      const unmapped: never = code;
      throw new Error(`unmapped error code ${String(unmapped)}`);
    }
  }
}
