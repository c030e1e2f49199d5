import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, modelPolicyOf } from '@app/config';
import type { AssistantMode } from '@app/contracts';
import { ASSISTANT_SESSION_BODY, DomainError, ErrorCode, isUuid, modelChoiceIssues, notFound, parseAssistantMessage } from '@app/domain';
import { AssistantRepository, WorkflowRepository, type AssistantSessionRecord, type Page } from '@app/persistence';
import type { Pagination } from '../common/pagination';
import { AssistantLauncher } from '../temporal/assistant-launcher';
import { toSessionView, type SessionView } from './assistant.views';
import { deliverMessage } from './message-delivery';

const invalid = (field: string, message: string) => new DomainError(ErrorCode.ValidationFailed, message, { field });

@Injectable()
export class AssistantService {
  constructor(
    private readonly sessions: AssistantRepository,
    private readonly workflows: WorkflowRepository,
    private readonly launcher: AssistantLauncher,
    private readonly config: AppConfig,
  ) {}

  /** The longest message a session takes (ASSISTANT_MESSAGE_MAX_CHARS). */
  get messageMaxChars(): number {
    return this.config.assistant.messageMaxChars;
  }

  /** POST /assistant/sessions: the session's row, then its workflow in Temporal (the row goes if that fails). */
  async create(userId: string, input: unknown): Promise<SessionView> {
    const { mode, source_workflow_uuid, provider, model } = ASSISTANT_SESSION_BODY.parse(input);
    const source = await this.sourceOf(userId, mode, source_workflow_uuid);
    const choice = { provider, model: model ?? this.config.assistant.model };
    const [issue] = modelChoiceIssues(choice, modelPolicyOf(this.config));
    if (issue) throw new DomainError(issue.code, issue.message, { field: issue.field });
    const session = await this.sessions.create({
      uuid: randomUUID(),
      user_id: userId,
      mode,
      source_workflow_uuid: source,
      provider,
      model,
    });
    try {
      await this.launcher.start({ session_uuid: session.uuid, user_id: userId, mode, source_workflow_uuid: source });
    } catch (error) {
      await this.sessions.delete(userId, session.uuid);
      throw error;
    }
    return toSessionView(session);
  }

  private async sourceOf(userId: string, mode: AssistantMode, value: unknown): Promise<string | null> {
    if (mode === 'create') {
      if (value !== undefined && value !== null)
        throw invalid('source_workflow_uuid', 'a create session starts from nothing: leave source_workflow_uuid out');
      return null;
    }
    if (typeof value !== 'string' || !isUuid(value))
      throw invalid('source_workflow_uuid', `an ${mode} session needs source_workflow_uuid, the uuid of one of your workflows`);
    if (!(await this.workflows.find(userId, value.toLowerCase()))) throw notFound('Workflow', value);
    return value.toLowerCase();
  }

  async list(userId: string, page: Pagination): Promise<Page<SessionView>> {
    const result = await this.sessions.list(userId, page);
    return { ...result, items: result.items.map(toSessionView) };
  }

  async get(userId: string, uuid: string): Promise<SessionView> {
    return toSessionView(await this.find(userId, uuid));
  }

  /** Scoped to the user: another user's session is a 404, as a missing one. */
  async find(userId: string, uuid: string): Promise<AssistantSessionRecord> {
    const session = isUuid(uuid) ? await this.sessions.find(userId, uuid.toLowerCase()) : null;
    if (!session) throw notFound('Assistant session', uuid);
    return session;
  }

  async remove(userId: string, uuid: string): Promise<void> {
    const session = await this.find(userId, uuid);
    await this.launcher.stop(session.uuid);
    await this.sessions.delete(userId, session.uuid);
  }

  /**
   * POST /assistant/sessions/{uuid}/messages: the message goes to the session's workflow; answers the seq of
   * the last event before it, where the turn's events start.
   */
  async sendMessage(userId: string, uuid: string, body: unknown): Promise<{ session: AssistantSessionRecord; after: number }> {
    const text = parseAssistantMessage(body, this.messageMaxChars);
    const session = await this.find(userId, uuid);
    if (!session.is_open)
      throw new DomainError(
        ErrorCode.AssistantClosed,
        `The session has ended${session.final_error_message ? ` (${session.final_error_message})` : ''}: start a new one`,
        { field: 'text' },
      );
    const after = await this.sessions.lastSeq(session.uuid);
    await deliverMessage({
      send: () => this.launcher.sendMessage(session.uuid, { text }),
      turnEnded: () => this.turnEnded(session.uuid, after),
      closed: () => this.sessions.close(session.uuid),
    });
    return { session, after };
  }

  /** The session's last event is still `after`, and it ended its turn. */
  private async turnEnded(sessionUuid: string, after: number): Promise<boolean> {
    if (after === 0 || (await this.sessions.lastSeq(sessionUuid)) !== after) return false;
    const [last] = await this.sessions.eventsAfter(sessionUuid, after - 1, 1);
    return last?.payload.is_final === true;
  }
}
