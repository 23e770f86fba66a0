import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';

/**
 * Where agentstate's OpenTelemetry spans and metrics go. Without a provider here, the global
 * ones are used: a no-op until the app registers an OpenTelemetry SDK.
 * @example
 * new Agent({ name, model, telemetry: { tracerProvider, recordContent: false } });
 */
export interface TelemetryOptions {
  /** @default the global tracer provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider | undefined;
  /** @default the global meter provider (`metrics.getMeterProvider()`) */
  meterProvider?: MeterProvider | undefined;
  /**
   * Record message and tool-argument content on spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments` / `.result`), redacted with the
   * agent's `redact`.
   * @default false
   */
  recordContent?: boolean | undefined;
}

const TELEMETRY_NAMES = optionNames<TelemetryOptions>({
  tracerProvider: true,
  meterProvider: true,
  recordContent: true,
});

/** Checks a `telemetry` option (`false` or the object); a mistake is a `TypeError` naming it. */
export function checkTelemetryOptions(call: string, value: unknown): void {
  if (value === undefined || value === false || !isObject(value)) return;
  new OptionChecker(call, value, TELEMETRY_NAMES, 'telemetry')
    .implements('tracerProvider', 'TracerProvider', ['getTracer'])
    .implements('meterProvider', 'MeterProvider', ['getMeter'])
    .check('recordContent', 'a boolean', (v) => typeof v === 'boolean');
}
