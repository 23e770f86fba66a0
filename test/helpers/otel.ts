import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import type { Logger } from '../../src/index.js';

/** A metric reader the test collects from on demand. */
class TestReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * An OpenTelemetry SDK for one test: spans to an in-memory exporter, metrics to a reader the
 * test collects. Passed to agentstate through its `telemetry` option (nothing global).
 */
export function testTelemetry(extra: SpanProcessor[] = []) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter), ...extra],
  });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    /** The `telemetry` option sending spans and metrics here. */
    options: { tracerProvider, meterProvider },
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** The histograms recorded so far, by metric name. */
    async histograms(): Promise<Map<string, HistogramMetricData>> {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, HistogramMetricData>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          out.set(metric.descriptor.name, metric as HistogramMetricData);
        }
      }
      return out;
    },
  };
}

/** A span processor that calls `onStart` / `onEnd` with each span (a telemetry hook). */
export function hookProcessor(hooks: {
  onStart?: (span: Span) => void;
  onEnd?: (span: ReadableSpan) => void;
}): SpanProcessor {
  return {
    onStart: (span) => hooks.onStart?.(span),
    onEnd: (span) => hooks.onEnd?.(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

/** A logger that keeps its lines (fields and message), pino-shaped. */
export function memoryLogger() {
  const lines: (Record<string, unknown> & { level: string; msg?: string })[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg?: string): void => {
      lines.push({ level, msg, ...fields });
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
  return { logger, lines };
}

/** The spans named `name` (e.g. `chat m`), in end order. */
export const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

/** A span's parent span id (SDK 2: `parentSpanContext`). */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
