// Coded errors raised by services and domain logic. They run in the API and in the worker alike, so they
// carry no HTTP status: the API's exception filter and the activities map each code at their edge.

export enum ErrorCode {
  // request shape
  InvalidBody = 'INVALID_BODY',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  ValidationFailed = 'VALIDATION_FAILED',
  // definitions
  UnknownStepType = 'UNKNOWN_STEP_TYPE',
  UnknownTriggerType = 'UNKNOWN_TRIGGER_TYPE',
  DuplicateStepName = 'DUPLICATE_STEP_NAME',
  DuplicateStepUuid = 'DUPLICATE_STEP_UUID',
  UnknownStepReference = 'UNKNOWN_STEP_REFERENCE',
  ForwardStepReference = 'FORWARD_STEP_REFERENCE',
  InvalidJsonPath = 'INVALID_JSON_PATH',
  /** Evaluating a user's expression (a JSONPath, a rule, a prompt's placeholders) would pass its work budget. */
  ExpressionBudgetExceeded = 'EXPRESSION_BUDGET_EXCEEDED',
  InvalidOutputSchema = 'INVALID_OUTPUT_SCHEMA',
  InvalidPlaceholder = 'INVALID_PLACEHOLDER',
  InvalidLoop = 'INVALID_LOOP',
  NotAPermutation = 'NOT_A_PERMUTATION',
  ImportUnparseable = 'IMPORT_UNPARSEABLE',
  UnknownTool = 'UNKNOWN_TOOL',
  // graphs
  UnknownGraphNode = 'UNKNOWN_GRAPH_NODE',
  InvalidEdge = 'INVALID_EDGE',
  InvalidJoin = 'INVALID_JOIN',
  InvalidSubWorkflow = 'INVALID_SUB_WORKFLOW',
  SubWorkflowCycle = 'SUB_WORKFLOW_CYCLE',
  DuplicateEdge = 'DUPLICATE_EDGE',
  DuplicateRoute = 'DUPLICATE_ROUTE',
  UnreachableStep = 'UNREACHABLE_STEP',
  // resources
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  /** A client-chosen uuid (workflow, step, trigger) another user holds or once held: uuids never pass between users. */
  UuidTaken = 'UUID_TAKEN',
  /** A new user id that differs only in case, accents or width from an existing one. */
  UserIdConfusable = 'USER_ID_CONFUSABLE',
  // auth
  Unauthorized = 'UNAUTHORIZED',
  // runs
  RunNotActive = 'RUN_NOT_ACTIVE',
  RunStillRunning = 'RUN_STILL_RUNNING',
  NothingToResume = 'NOTHING_TO_RESUME',
  StepNotInDefinition = 'STEP_NOT_IN_DEFINITION',
  StepNotCompleted = 'STEP_NOT_COMPLETED',
  /** The run, or the named step, is not waiting for a person's answer. */
  StepNotAwaitingInput = 'STEP_NOT_AWAITING_INPUT',
  /** A conversational run is answering a message: the next one waits for its reply. */
  ConversationBusy = 'CONVERSATION_BUSY',
  /** Messages go only to runs of a conversational workflow (graph.is_conversational). */
  NotConversational = 'NOT_CONVERSATIONAL',
  /** A person's answer breaks the waiting step's input_schema. */
  InvalidHumanInput = 'INVALID_HUMAN_INPUT',
  /** The tools of a workflow with tool_drift "fail" differ from the manifest saved with it. */
  ToolDrift = 'TOOL_DRIFT',
  /** Temporal does not answer: the request changed nothing and may be repeated. */
  TemporalUnavailable = 'TEMPORAL_UNAVAILABLE',
  /** MySQL refused or lost the request's connection (at max_connections, restarting): repeat it (a run's start with its Idempotency-Key). */
  DatabaseUnavailable = 'DATABASE_UNAVAILABLE',
  /** A URL the worker would fetch can only reach a denied address (loopback, private, metadata...). */
  EgressDenied = 'EGRESS_DENIED',
  /** A webhook delivery's signature is malformed or does not match its body. */
  WebhookSignatureInvalid = 'WEBHOOK_SIGNATURE_INVALID',
  /** A webhook delivery was signed longer ago than the tolerance (WEBHOOK_TOLERANCE_SECONDS). */
  WebhookSignatureStale = 'WEBHOOK_SIGNATURE_STALE',
  /** A webhook delivery whose signature was accepted before: a replay. */
  WebhookReplayed = 'WEBHOOK_REPLAYED',
  /** Too many requests with one API key (RATE_LIMIT_PER_MINUTE). */
  RateLimited = 'RATE_LIMITED',
  /** A step names a model outside MODELS_ALLOWED. */
  ModelNotAllowed = 'MODEL_NOT_ALLOWED',
  /** A step names a model provider the operator did not configure (no API key). */
  ProviderNotConfigured = 'PROVIDER_NOT_CONFIGURED',
  /** The user has MAX_RUNS_IN_FLIGHT_PER_USER runs running or waiting already. */
  TooManyRunsInFlight = 'TOO_MANY_RUNS_IN_FLIGHT',
  /** The user's model calls spent (or reserved) their daily or monthly limit in dollars: `resets_at` says when it frees. */
  SpendLimitReached = 'SPEND_LIMIT_REACHED',
  /** A usage report asked for more days than USAGE_MAX_DAYS (`field`: the end of the range past it, `max_days`). */
  UsageRangeTooLong = 'USAGE_RANGE_TOO_LONG',
  /** A run's calls spent (or reserved) its budget's max_cost: its next call waits for the run's budget approval. */
  RunBudgetReached = 'RUN_BUDGET_REACHED',
  /** An API key holds SSE_MAX_STREAMS_PER_KEY event streams open already. */
  TooManyStreams = 'TOO_MANY_STREAMS',
  /** A call of the run died in flight with POISON_ATTEMPTS_LIMIT workers: the run is stopped, never tried again (contracts' RUN_QUARANTINED). */
  RunQuarantined = 'RUN_QUARANTINED',
  /** A replay reached a tool call its record has no identical call for, and the tool is not side-effect free: that branch stops. */
  ReplayToolNotReplayable = 'REPLAY_TOOL_NOT_REPLAYABLE',
  /** A workflow holds SCHEDULES_MAX_PER_WORKFLOW schedules, or its user SCHEDULES_MAX_PER_USER, already. */
  TooManySchedules = 'TOO_MANY_SCHEDULES',
  /** A JSON Schema whose smallest instance, or whose checking, would cost past the bounds (the one validator's, or an example's byte budget). */
  SchemaTooLarge = 'SCHEMA_TOO_LARGE',
  // the assistant
  /** An assistant session is answering a message: the next one waits for the turn to finish. */
  AssistantBusy = 'ASSISTANT_BUSY',
  /** Every thread that checks webhook deliveries is busy and WEBHOOK_CHECK_QUEUE are waiting, or the check ran past its time limit: send again later. */
  WebhooksBusy = 'WEBHOOKS_BUSY',
  /** An assistant session that saved its workflow, failed or was deleted takes no more messages. */
  AssistantClosed = 'ASSISTANT_CLOSED',
  /** A step names `<server>.<tool>` for a server the user has not registered. */
  UnknownMcpServer = 'UNKNOWN_MCP_SERVER',
  /** An MCP server could not be reached, or failed to answer (named in the message and details). */
  McpServerUnavailable = 'MCP_SERVER_UNAVAILABLE',
  /** stdio MCP servers start processes on the worker: off unless the operator sets MCP_STDIO=on. */
  McpStdioDisabled = 'MCP_STDIO_DISABLED',
}

/** What went wrong where: `field` is a path into the request body, e.g. `steps[2].system_prompt`. */
export interface ErrorDetails {
  field?: string;
  [key: string]: unknown;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, uuid: string): DomainError =>
  new DomainError(ErrorCode.NotFound, `${what} ${uuid} not found`, { uuid });
