// A streamed answer's pieces on their way to the API's watchers: batched into `run_deltas`, never into
// Temporal's history. The first piece of a call is written at once (what a watcher waits for most), the
// next ones at most every FLUSH_MS in one INSERT, one write in flight per call so they land in order. The
// last batch is not waited for: it commits beside the call's end (a commit of its own waited for would add
// a redo-log flush to every step: +29 ms a step measured, see BENCHMARKS.md), so a watcher may read it just
// after the call's model_call_finished. A write that fails loses only pieces (logged): the answer, its
// tokens and its audit are the call's own writes.
import { Injectable, Logger } from '@nestjs/common';
import { RunEventRepository, type ModelCallKey, type RunDelta } from '@app/persistence';
import type { ModelDelta } from '@app/providers';

/** How long pieces gather before they are written together (after a call's first, written at once). */
export const FLUSH_MS = 20;

/** One call's pieces: `add` as they come, `close` once the answer is complete (or failed): the rest goes, unwaited. */
export interface AnswerStream {
  add(delta: ModelDelta): void;
  close(): void;
}

@Injectable()
export class AnswerDeltas {
  private readonly logger = new Logger(AnswerDeltas.name);

  constructor(private readonly events: RunEventRepository) {}

  open(runUuid: string, call: ModelCallKey): AnswerStream {
    let pending: RunDelta[] = [];
    let writing: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | null = null;
    let lastFlushAt = 0;
    const flush = () => {
      timer = null;
      if (!pending.length) return;
      const batch = pending;
      pending = [];
      lastFlushAt = Date.now();
      writing = writing
        .then(() => this.events.appendDeltas(runUuid, batch))
        .catch((error: unknown) => this.logger.warn(`streamed pieces of an answer of run ${runUuid} were not written: ${String(error)}`));
    };
    return {
      add: (delta) => {
        const piece = pieceOf(delta);
        const last = pending[pending.length - 1];
        // Pieces that follow one another in one text or one tool call's arguments go as one row.
        if (last && piece.kind !== 'tool_call' && last.kind === piece.kind && last.tool_index === piece.tool_index) last.text += piece.text;
        else pending.push({ ...call, ...piece });
        timer ??= setTimeout(flush, Math.max(0, lastFlushAt + FLUSH_MS - Date.now()));
      },
      close: () => {
        if (timer) clearTimeout(timer);
        flush();
      },
    };
  }
}

function pieceOf(delta: ModelDelta): Pick<RunDelta, 'kind' | 'tool_index' | 'text'> {
  switch (delta.kind) {
    case 'text':
      return { kind: 'text', tool_index: null, text: delta.text };
    case 'tool_call':
      return { kind: 'tool_call', tool_index: delta.index, text: JSON.stringify({ id: delta.id, name: delta.name }) };
    case 'tool_args':
      return { kind: 'tool_args', tool_index: delta.index, text: delta.text };
  }
}
