import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { quarantineOf, type DomainError } from '@app/domain';
import { CallAuditRepository } from '@app/persistence';

/**
 * Before a model or tool call's attempt goes out: the refusal (RUN_QUARANTINED) when POISON_ATTEMPTS_LIMIT
 * earlier attempts of the same call died in flight with their worker. Asked once the attempt's `running` row
 * is written (its number is known then: a local activity run again after its worker died counts from 1, its
 * row takes the next), so the call audit, which already keeps the attempts a dead worker left, does the
 * counting. A first attempt follows none and costs no read.
 */
@Injectable()
export class CallQuarantine {
  constructor(
    private readonly calls: CallAuditRepository,
    private readonly config: AppConfig,
  ) {}

  async ofModelCall(instanceUuid: string, turn: number, attempt: number): Promise<DomainError | null> {
    if (attempt === 1) return null;
    const died = await this.calls.diedModelAttempts(instanceUuid, turn, attempt);
    return quarantineOf({ what: `the model call (turn ${turn})`, died }, this.config.worker.poisonAttemptsLimit);
  }

  async ofToolCall(instanceUuid: string, toolCallId: string, toolName: string, attempt: number): Promise<DomainError | null> {
    if (attempt === 1) return null;
    const died = await this.calls.diedToolAttempts(instanceUuid, toolCallId, attempt);
    return quarantineOf({ what: `the tool call ${toolName} (${toolCallId})`, died }, this.config.worker.poisonAttemptsLimit);
  }
}
