// A trace as OpenTelemetry spans (OTLP/JSON, the body of a `POST /v1/traces`), so that other trace viewers (Jaeger,
// Tempo, Phoenix, Langfuse, …) import a run. Attributes follow OpenTelemetry's GenAI conventions where one fits.
// Ids are derived from the run's and the spans' ids: exporting the same run twice gives the same trace. Pure.

import type { Span } from './span';

export interface OtlpRun {
  runId: string;
  crewName: string;
  kickoffId: string;
  /** Where a span without an end is drawn to (the run's end, or now). */
  endedAt: number;
}

interface KeyValue {
  key: string;
  value: { stringValue: string } | { intValue: string } | { boolValue: boolean };
}

const SPAN_KIND_INTERNAL = 1;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export function toOtlp(spans: readonly Span[], run: OtlpRun): unknown {
  const traceId = hex(`${run.runId}`, 32);
  const spanIds = new Map(spans.map((s) => [s.id, hex(`${run.runId}/${s.id}`, 16)]));
  const exported = spans.map((span) => {
    const start = span.start ?? span.end ?? run.endedAt;
    const end = span.end ?? run.endedAt;
    const parent = span.parentId !== undefined ? spanIds.get(span.parentId) : undefined;
    return {
      traceId,
      spanId: spanIds.get(span.id)!,
      ...(parent ? { parentSpanId: parent } : {}),
      name: `${span.kind} ${span.name}`,
      kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(Math.max(start, end)),
      attributes: attributesOf(span),
      status: span.state === 'failed' ? { code: STATUS_ERROR, message: span.error ?? '' } : span.state === 'ok' ? { code: STATUS_OK } : {},
    };
  });
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', run.crewName), str('crewai.kickoff_id', run.kickoffId)] },
        scopeSpans: [{ scope: { name: 'crew-runs' }, spans: exported }],
      },
    ],
  };
}

function attributesOf(span: Span): KeyValue[] {
  const attributes: KeyValue[] = [str('crewai.event.type', span.type), str('crewai.span.state', span.state)];
  if (span.endType) {
    attributes.push(str('crewai.event.end_type', span.endType));
  }
  if (span.kind === 'llm') {
    attributes.push(str('gen_ai.operation.name', 'chat'));
  }
  if (span.kind === 'tool') {
    attributes.push(str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', span.name));
  }
  if (span.kind === 'agent') {
    attributes.push(str('gen_ai.agent.name', span.name));
  }
  if (span.model) {
    attributes.push(str('gen_ai.request.model', span.model));
  }
  const usage = span.usage;
  if (usage?.promptTokens !== undefined) {
    attributes.push(int('gen_ai.usage.input_tokens', usage.promptTokens));
  }
  if (usage?.completionTokens !== undefined) {
    attributes.push(int('gen_ai.usage.output_tokens', usage.completionTokens));
  }
  if (usage?.totalTokens !== undefined) {
    attributes.push(int('crewai.usage.total_tokens', usage.totalTokens));
  }
  if (span.toolArgs !== undefined) {
    attributes.push(str('crewai.tool.args', span.toolArgs));
  }
  if (span.fromCache !== undefined) {
    attributes.push({ key: 'crewai.tool.from_cache', value: { boolValue: span.fromCache } });
  }
  if (span.error !== undefined) {
    attributes.push(str('error.type', span.endType ?? 'error'));
  }
  return attributes;
}

function str(key: string, value: string): KeyValue {
  return { key, value: { stringValue: value } };
}

function int(key: string, value: number): KeyValue {
  return { key, value: { intValue: String(Math.round(value)) } };
}

/** OTLP/JSON writes 64-bit integers as decimal strings. */
function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

/** `digits` hex digits derived from `text` (32-bit multiply-xor rounds with distinct seeds); never all zeros. */
function hex(text: string, digits: number): string {
  let out = '';
  for (let round = 0; out.length < digits; round++) {
    let h = (0x811c9dc5 ^ Math.imul(round + 1, 0x9e3779b9)) >>> 0;
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
      h ^= h >>> 13;
    }
    out += (h >>> 0).toString(16).padStart(8, '0');
  }
  const id = out.slice(0, digits);
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}
