import type { TraceCarrier } from '../machines/run-types.js';
import { contextOf } from './trace-carrier.js';

/**
 * The W3C trace context a request carries (its `traceparent` and `tracestate` headers), for
 * `withRemoteParent`; `undefined` without a `traceparent`.
 */
export function traceCarrierOf(headers: Headers): TraceCarrier | undefined {
  const traceparent = headers.get('traceparent');
  if (traceparent === null || traceparent === '') return undefined;
  const tracestate = headers.get('tracestate');
  return { traceparent, ...(tracestate ? { tracestate } : {}) };
}

/**
 * Calls `fn` with the caller's trace context (a remote span, from its `traceparent`) as the
 * active OpenTelemetry context, so a run `fn` starts gets a span that is a child of the
 * caller's: its trace goes on across the call. The context follows `fn`'s asynchronous work
 * where the app registered a context manager (an OpenTelemetry SDK does); a carrier that does
 * not parse changes nothing. Without a carrier `@opentelemetry/api` is not loaded.
 */
export async function withRemoteParent<T>(
  carrier: TraceCarrier | undefined,
  fn: () => T,
): Promise<T> {
  if (!carrier) return fn();
  const otel = await import('@opentelemetry/api');
  return otel.context.with(contextOf(otel, carrier), fn);
}
