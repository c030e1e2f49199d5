import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { StreamSlots } from './stream-slots';

/** The one count of event streams per key (SSE_MAX_STREAMS_PER_KEY) that the assistant's, runs' and workflows' streams share. */
@Module({
  providers: [
    { provide: StreamSlots, useFactory: (config: AppConfig) => new StreamSlots(config.assistant.maxStreamsPerKey), inject: [AppConfig] },
  ],
  exports: [StreamSlots],
})
export class StreamSlotsModule {}
