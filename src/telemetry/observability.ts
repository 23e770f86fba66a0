import { metrics, trace, type Tracer } from '@opentelemetry/api';
import type { RunContext } from '../context/run-context.js';
import type { Redact } from '../errors/redact-deep.js';
import { GenAiMetrics } from './gen-ai-metrics.js';
import { RunLog, envLogger, type Logger } from './logger.js';
import { SessionObserver } from './session-observer.js';
import type { TelemetryOptions } from './telemetry-options.js';

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
 * global ones, a no-op until an SDK is registered) and its logger (the `logger` option, else
 * `AGENTSTATE_LOG`, else none). Each loaded session gets a {@link SessionObserver} of it.
 */
export class Observability {
  readonly tracer: Tracer | undefined;
  readonly metrics: GenAiMetrics | undefined;
  readonly recordContent: boolean;
  readonly log: RunLog | undefined;
  readonly redact: Redact | undefined;

  constructor(options: ObservabilityOptions) {
    const { telemetry } = options;
    this.tracer =
      telemetry === false
        ? undefined
        : (telemetry?.tracerProvider ?? trace.getTracerProvider()).getTracer('agentstate');
    this.metrics =
      telemetry === false
        ? undefined
        : new GenAiMetrics(telemetry?.meterProvider ?? metrics.getMeterProvider());
    this.recordContent = (telemetry || undefined)?.recordContent === true;
    const logger = options.logger ?? envLogger(options.envLevel);
    this.log = logger ? new RunLog(logger, options.redact) : undefined;
    this.redact = options.redact;
  }

  /** The observer of one loaded session (`version`: its stored version when loaded). */
  forSession(version: number, contextFor: (runId: string) => RunContext): SessionObserver {
    return new SessionObserver(this, version, contextFor);
  }
}
