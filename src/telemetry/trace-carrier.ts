import type { Context, SpanContext } from '@opentelemetry/api';
import type { TraceCarrier } from '../machines/run-types.js';
import type { OtelModule } from './observability.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The `traceparent` (and `tracestate`) of a span context; undefined for an invalid one. */
export function carrierOf(otel: OtelModule, spanContext: SpanContext): TraceCarrier | undefined {
  if (!otel.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const state = spanContext.traceState?.serialize();
  return {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    ...(state ? { tracestate: state } : {}),
  };
}

/**
 * An OpenTelemetry context whose (remote) parent is the stored span context, so spans started
 * in it continue the stored trace; `ROOT_CONTEXT` for a carrier that does not parse.
 */
export function contextOf(otel: OtelModule, carrier: TraceCarrier): Context {
  const match = TRACEPARENT.exec(carrier.traceparent);
  if (!match) return otel.ROOT_CONTEXT;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & otel.TraceFlags.SAMPLED,
    isRemote: true,
    ...(carrier.tracestate ? { traceState: otel.createTraceState(carrier.tracestate) } : {}),
  };
  return otel.isSpanContextValid(spanContext)
    ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, spanContext)
    : otel.ROOT_CONTEXT;
}
