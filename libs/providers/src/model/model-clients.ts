import type { ModelProvider } from '@app/contracts';
import { ModelCallError } from './model-call-error';
import type { ModelClient } from './model-client';

/** The model client of each provider the operator configured; the worker picks one per call by the step's provider. */
export abstract class ModelClients {
  /** A provider this process has no settings for fails the call for good: another attempt cannot help. */
  abstract forProvider(provider: ModelProvider): ModelClient;
}

export class ModelClientRegistry extends ModelClients {
  constructor(private readonly clients: Partial<Record<ModelProvider, ModelClient>>) {
    super();
  }

  forProvider(provider: ModelProvider): ModelClient {
    const client = this.clients[provider];
    if (client) return client;
    throw new ModelCallError({
      kind: 'bad_request',
      retryable: false,
      message: `model provider ${provider} is not configured here (its API key is not set)`,
    });
  }
}
