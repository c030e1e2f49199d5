import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DomainError, ErrorCode } from '@app/domain';
import { EgressPolicy } from '@app/providers';

/**
 * Saving a URL the worker will fetch (a tool's endpoint_url, a workflow's notify_url): refused with a coded
 * 422 when its host can only be reached in a denied range. The worker checks again at every connection.
 */
@Injectable()
export class EgressGuard {
  private readonly policy: EgressPolicy;

  constructor(config: AppConfig) {
    this.policy = new EgressPolicy(config.egress.allow);
  }

  async assertReachable(url: string | null | undefined, field: string): Promise<void> {
    if (!url) return;
    const refusal = await this.policy.refusalAtSave(url);
    if (refusal)
      throw new DomainError(ErrorCode.EgressDenied, `${field}: ${refusal}; an operator may allow it with EGRESS_ALLOW`, { field });
  }
}
