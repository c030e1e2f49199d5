// The run and workflow event streams of this API process: one RunHub per watched run (made on its first
// watcher, dropped after its last), and a workflow's stream read on its own.
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { RunEventRepository } from '@app/persistence';
import { idleNotice, KEEPALIVE_MS, sleep, type EventSink } from '../common/event-stream';
import { eventFrame, RunHub } from './run-hub';

/** How often a watched run is read: a streamed answer's pieces reach a watcher within about this (plus the worker's flush). */
export const RUN_POLL_MS = 20;
/** A workflow's stream carries events only (no pieces of answers): the assistant's pace is enough. */
const WORKFLOW_POLL_MS = 150;
const BATCH = 100;

@Injectable()
export class RunWatch {
  private readonly hubs = new Map<string, RunHub>();

  constructor(
    readonly events: RunEventRepository,
    private readonly config: AppConfig,
  ) {}

  /** Follows the run (`definition` its snapshot) into `sink` after event `after`, until its final event, SSE_IDLE_SECONDS without news, or the client goes. */
  run(runUuid: string, definition: unknown, sink: EventSink & { buffered(): number }, after: number): Promise<void> {
    let hub = this.hubs.get(runUuid);
    if (!hub) {
      const made: RunHub = new RunHub(runUuid, definition, this.events, { pollMs: RUN_POLL_MS, idleMs: this.idleMs }, () => {
        if (!made.watching && this.hubs.get(runUuid) === made) this.hubs.delete(runUuid);
      });
      this.hubs.set(runUuid, (hub = made));
    }
    return hub.watch(sink, after);
  }

  /**
   * Follows the events of all the workflow's runs after event id `after` (their SSE ids), until SSE_IDLE_SECONDS
   * without one or the client goes: a workflow has no final event.
   */
  async workflow(workflowUuid: string, sink: EventSink, after: number): Promise<void> {
    let cursor = after;
    let lastEventAt = Date.now();
    let lastWriteAt = lastEventAt;
    while (!sink.closed()) {
      const events = await this.events.workflowEventsAfter(workflowUuid, cursor, BATCH);
      if (events.length) {
        sink.write(events.map((event) => eventFrame(event, event.id)).join(''));
        cursor = events[events.length - 1].id;
        lastEventAt = lastWriteAt = Date.now();
        if (events.length === BATCH) continue;
      } else if (Date.now() - lastEventAt >= this.idleMs) {
        sink.write(idleNotice(this.idleMs, cursor));
        return;
      } else if (Date.now() - lastWriteAt > KEEPALIVE_MS) {
        sink.write(': keep-alive\n\n');
        lastWriteAt = Date.now();
      }
      await sleep(WORKFLOW_POLL_MS);
    }
  }

  /** Runs watched in this process now (metrics, tests). */
  get watchedRuns(): number {
    return this.hubs.size;
  }

  private get idleMs(): number {
    return this.config.assistant.streamIdleSeconds * 1000;
  }
}
