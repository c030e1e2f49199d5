// Temporal's codec-server protocol over the payload cipher, for people reading histories (the Web UI, the
// temporal CLI): a key decrypts only payloads of its own user's workflows; any other payload is answered as
// it came, still encrypted, which the Web UI shows as such.
import { Injectable } from '@nestjs/common';
import type { Payload } from '@temporalio/common';
import { AppConfig } from '@app/config';
import { DomainError, ErrorCode, isJsonObject } from '@app/domain';
import { WorkflowOwnerRepository } from '@app/persistence';
import { isEncryptedPayload, PayloadCipher, PayloadCipherError, payloadWorkflowId } from '@app/security';
import { jsonPayload, type JsonPayload, payloadsOf } from './payload-json';

export interface CodecAnswer {
  payloads: JsonPayload[];
}

@Injectable()
export class TemporalCodecService {
  private readonly cipher: PayloadCipher;
  private readonly limits: { payloads: number; bytes: number };

  constructor(
    config: AppConfig,
    private readonly owners: WorkflowOwnerRepository,
  ) {
    this.cipher = new PayloadCipher(config.security.keyring);
    this.limits = { payloads: config.temporal.codecMaxPayloads, bytes: config.temporal.codecMaxBytes };
  }

  async decode(userId: string, body: unknown): Promise<CodecAnswer> {
    const payloads = this.payloadsWithinLimits(body);
    const ownerOf = this.ownerLookup();
    const decoded = await Promise.all(
      payloads.map(async (payload) => ((await this.readableBy(payload, userId, ownerOf)) ? this.open(payload) : payload)),
    );
    return { payloads: decoded.map(jsonPayload) };
  }

  /** What the Web UI encodes (a signal's input typed there): encrypted, with no workflow, so no key decodes it here later. */
  encode(body: unknown): CodecAnswer {
    return {
      payloads: this.payloadsWithinLimits(body).map((payload) =>
        jsonPayload(isEncryptedPayload(payload) ? payload : this.cipher.seal(payload, null)),
      ),
    };
  }

  /**
   * The request's payloads, at most TEMPORAL_CODEC_MAX_PAYLOADS of them (each may cost an owner lookup and a
   * decryption; counted before any is decoded) and TEMPORAL_CODEC_MAX_BYTES in all: a 413 naming `payloads`.
   */
  private payloadsWithinLimits(body: unknown): Payload[] {
    const count = isJsonObject(body) && Array.isArray(body.payloads) ? body.payloads.length : 0;
    if (count > this.limits.payloads)
      throw new DomainError(ErrorCode.PayloadTooLarge, `A request takes at most ${this.limits.payloads} payloads, got ${count}`, {
        field: 'payloads',
        limit: this.limits.payloads,
      });
    const payloads = payloadsOf(body);
    const bytes = payloads.reduce(
      (sum, payload) =>
        sum + (payload.data?.length ?? 0) + Object.values(payload.metadata ?? {}).reduce((inner, value) => inner + value.length, 0),
      0,
    );
    if (bytes > this.limits.bytes)
      throw new DomainError(ErrorCode.PayloadTooLarge, `A request's payloads take at most ${this.limits.bytes} bytes, got ${bytes}`, {
        field: 'payloads',
        limit_bytes: this.limits.bytes,
      });
    return payloads;
  }

  private async readableBy(payload: Payload, userId: string, ownerOf: (workflowId: string) => Promise<string | null>): Promise<boolean> {
    if (!isEncryptedPayload(payload)) return false;
    const workflowId = payloadWorkflowId(payload);
    return workflowId !== null && (await ownerOf(workflowId)) === userId;
  }

  /** A payload under a key no longer configured (or altered) stays as it is. */
  private open(payload: Payload): Payload {
    try {
      return this.cipher.open(payload);
    } catch (error) {
      if (error instanceof PayloadCipherError) return payload;
      throw error;
    }
  }

  /** One lookup per workflow id in a request: a history's payloads mostly share one. */
  private ownerLookup(): (workflowId: string) => Promise<string | null> {
    const owners = new Map<string, Promise<string | null>>();
    return (workflowId) => {
      let owner = owners.get(workflowId);
      if (!owner) owners.set(workflowId, (owner = this.owners.ownerOf(workflowId)));
      return owner;
    };
  }
}
