export type { TelemetryOptions } from './telemetry-options.js';
export { type Logger, type LogLevel, type LogEvent, envLogger } from './logger.js';
export { Observability, type ObservabilityOptions } from './observability.js';
export { SessionObserver } from './session-observer.js';
export type { ObservedRun, RunEnding } from './run-attributes.js';
export { GEN_AI, GEN_AI_METRICS, AGENTSTATE, OPERATION } from './gen-ai-attributes.js';
