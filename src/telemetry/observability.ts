import type * as OtelApi from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import type { RunContext } from '../core/run-context.js';
import type { Redact } from '../errors/redact-deep.js';
import { GenAiMetrics } from './gen-ai-metrics.js';
import { RunLog, envLogger, type Logger } from './logger.js';
import { SessionObserver } from './session-observer.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** The OpenTelemetry API module. */
export type OtelModule = typeof OtelApi;

/**
 * Where `@opentelemetry/api` (major version 1, any copy of it) keeps what an app registered
 * globally: a tracer or meter provider, a context manager, a propagator.
 */
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** What the runtime is configured with: the agent's (or runtime's) telemetry and logger. */
export interface ObservabilityOptions {
  /** `false`: no spans or metrics at all. */
  telemetry?: TelemetryOptions | false | undefined;
  logger?: Logger | undefined;
  redact?: Redact | undefined;
  /** `AGENTSTATE_LOG`, read once by the runtime's constructor. */
  envLevel?: string | undefined;
}

/**
 * One runtime's telemetry: its tracer and GenAI histograms (from the given providers or the
 * global ones) and its logger (the `logger` option, else `AGENTSTATE_LOG`, else none). Each
 * loaded session gets a {@link SessionObserver} of it.
 *
 * `@opentelemetry/api` is loaded by {@link ready}, only once something can record: a provider
 * given in the options, or anything an app registered globally (an SDK's `register()`).
 * Until then the global providers are no-ops, so spans and metrics are skipped outright and
 * the module (a noticeable share of a cold start) is never loaded.
 */
export class Observability {
  /** The API module, once loaded; set together with {@link tracer} and {@link metrics}. */
  otel: OtelModule | undefined;
  tracer: Tracer | undefined;
  metrics: GenAiMetrics | undefined;
  readonly recordContent: boolean;
  readonly log: RunLog | undefined;
  readonly redact: Redact | undefined;
  private readonly telemetry: TelemetryOptions | undefined;
  private loading: Promise<void> | undefined;

  constructor(options: ObservabilityOptions) {
    const { telemetry } = options;
    this.telemetry = telemetry === false ? undefined : (telemetry ?? {});
    this.recordContent = (telemetry || undefined)?.recordContent === true;
    const logger = options.logger ?? envLogger(options.envLevel);
    this.log = logger ? new RunLog(logger, options.redact) : undefined;
    this.redact = options.redact;
  }

  /**
   * Loads the API when telemetry can record (see the class); the runtime awaits it before
   * each action, so a provider an app registers later is used from its next action on.
   * `undefined` when there is nothing to wait for.
   */
  ready(): Promise<void> | undefined {
    const telemetry = this.telemetry;
    if (this.otel || !telemetry) return undefined;
    const given = telemetry.tracerProvider ?? telemetry.meterProvider;
    if (!given && (globalThis as Record<symbol, unknown>)[OTEL_GLOBALS] === undefined) {
      return undefined;
    }
    this.loading ??= import('@opentelemetry/api').then((otel) => {
      this.tracer = (telemetry.tracerProvider ?? otel.trace.getTracerProvider()).getTracer(
        'agentstate',
      );
      this.metrics = new GenAiMetrics(telemetry.meterProvider ?? otel.metrics.getMeterProvider());
      this.otel = otel;
    });
    return this.loading;
  }

  /** The observer of one loaded session (`version`: its stored version when loaded). */
  forSession(version: number, contextFor: (runId: string) => RunContext): SessionObserver {
    return new SessionObserver(this, version, contextFor);
  }
}
