// One row of a run's trace: what the page draws and the summary and the cost estimate read. Data only, so it can
// be posted to the run view's page as it is.
import type { EventUsage } from '../../api/types';

export type SpanKind = 'crew' | 'flow' | 'task' | 'agent' | 'llm' | 'tool' | 'method' | 'event';

/** `lost`: still open when the run ended (its end was never seen); `running` again if the run goes on. */
export type SpanState = 'running' | 'ok' | 'failed' | 'lost';

export interface Span {
  /** Stable for the life of the trace: the key of the event that made the row. */
  readonly id: string;
  /** The enclosing span; never changes once the span is added. */
  readonly parentId?: string;
  readonly depth: number;
  /** `event`: a moment, a type this model does not know, or a row of stream chunks no model call took. */
  readonly kind: SpanKind;
  /** Task name, agent role, model, tool name, method or flow name; the raw type when nothing better is known. */
  readonly name: string;
  /** The starting event's type (or the lone event's). */
  readonly type: string;
  /** The ending event's type, once one was seen. */
  readonly endType?: string;
  /** Epoch milliseconds. An end without a start has no start; an open span no end until the run ended. */
  readonly start?: number;
  readonly end?: number;
  readonly state: SpanState;
  readonly error?: string;
  readonly usage?: EventUsage;
  readonly model?: string;
  readonly toolArgs?: string;
  readonly fromCache?: boolean;
  /** Stream chunks (`llm_stream_chunk`) counted on this model call, or on this row of chunks. */
  readonly chunks?: number;
  /** Thinking chunks (`llm_thinking_chunk`), counted the same way. */
  readonly thinkingChunks?: number;
  /** The events the span is made of (start, end; at most a few), by `RunEvent.key`. */
  readonly eventKeys: readonly string[];
}
