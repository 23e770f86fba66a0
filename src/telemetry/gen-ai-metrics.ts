import type { Attributes, Histogram, MeterProvider } from '@opentelemetry/api';
import { GEN_AI, GEN_AI_METRICS } from './gen-ai-attributes.js';

/** Bucket boundaries the conventions advise for `gen_ai.client.token.usage`. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** Bucket boundaries the conventions advise for `gen_ai.client.operation.duration` (s). */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** The conventions' client histograms, recorded once per model call. */
export class GenAiMetrics {
  private readonly tokens: Histogram;
  private readonly duration: Histogram;

  constructor(provider: MeterProvider) {
    const meter = provider.getMeter('agentstate');
    this.tokens = meter.createHistogram(GEN_AI_METRICS.tokenUsage, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.duration = meter.createHistogram(GEN_AI_METRICS.operationDuration, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  /** One model call: its duration, and (when it answered) its input and output tokens. */
  record(
    attributes: Attributes,
    seconds: number,
    usage?: { inputTokens: number; outputTokens: number },
  ): void {
    this.duration.record(seconds, attributes);
    if (!usage) return;
    this.tokens.record(usage.inputTokens, { ...attributes, [GEN_AI.tokenType]: 'input' });
    this.tokens.record(usage.outputTokens, { ...attributes, [GEN_AI.tokenType]: 'output' });
  }
}
