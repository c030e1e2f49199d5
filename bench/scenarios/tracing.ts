// Scenario 6: what tracing costs. The same 5-step chain, one run at a time, on the system without an OTLP
// endpoint and on a second one exporting every span to a local receiver, measured back to back.
import { OtlpReceiver } from '../../test/support/otlp-receiver';
import type { ModelFake } from '../../test/support/model-fake';
import { measureOverhead, type OverheadResult } from './overhead';
import { startSystem, type System } from '../support/system';

export interface TracingResult {
  off: OverheadResult;
  on: OverheadResult;
  spans_received: number;
}

export async function measureTracing(system: System, model: ModelFake, runs: number, warmup: number): Promise<TracingResult> {
  const receiver = await OtlpReceiver.start();
  const traced = await startSystem(model.baseUrl, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url });
  try {
    const [off] = await measureOverhead(system, model, [5], runs, warmup);
    const [on] = await measureOverhead(traced, model, [5], runs, warmup);
    return { off, on, spans_received: receiver.spans.length };
  } finally {
    await traced.stop();
    await receiver.close();
  }
}
