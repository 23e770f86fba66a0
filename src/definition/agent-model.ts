import { redactDeep, type Redact } from '../errors/redact-deep.js';
import { ModelError } from '../errors/run-errors.js';
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from '../models/model.js';
import { priceOf, type ModelPrice, type PriceTable } from '../models/pricing.js';

export interface AgentModelOptions {
  /** The app's scrubber, applied to every error of a failed call. */
  redact?: Redact | undefined;
  /** The agent's price table. @default the default prices */
  prices?: PriceTable | undefined;
}

const TOKEN_COUNTS = ['inputTokens', 'outputTokens', 'cachedTokens', 'reasoningTokens'] as const;

/**
 * Refuses an answer whose usage holds something no model reports (a fraction, a negative or
 * an unsafe number of tokens) with a `ModelError`, before it is counted or stored: the store
 * checks token counts on read, so such a count would make the session unreadable.
 */
function checkUsage(response: ModelResponse): void {
  const usage = (response as Partial<ModelResponse>).usage;
  for (const name of TOKEN_COUNTS) {
    const value: unknown = usage?.[name];
    if (value === undefined && name === 'reasoningTokens') continue;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new ModelError(
        `The model reported usage.${name} = ${String(value)}: token counts are non-negative integers`,
        { retryable: false },
      );
    }
  }
}

/**
 * The agent's model as its runs call it. The error of a failed call passes through the app's
 * `redact` (message, stack, cause chain, nested fields) before anything can store it or show
 * it; cancellations pass unchanged. The first answer from each model name with no known price
 * emits one `UnpricedModelWarning` (such answers report `costUsd: undefined`). One per Agent:
 * the names already warned about live as long as the agent, not the module.
 */
export class AgentModel implements Model {
  private readonly warned = new Set<string>();

  constructor(
    readonly inner: Model,
    private readonly options: AgentModelOptions = {},
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get price(): ModelPrice | undefined {
    return this.inner.price;
  }

  get provider(): string | undefined {
    return this.inner.provider;
  }

  /** The inner model's answer (callbacks: no async function stays suspended while it comes). */
  generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    // A model that throws rather than rejects is a failed call too.
    const answer = new Promise<ModelResponse>((resolve) =>
      resolve(this.inner.generate(request, options)),
    );
    return answer.then(
      (response) => {
        checkUsage(response);
        // An answer with its own reported cost (a remote agent's) needs no price.
        if (response.costUsd === undefined) this.checkPrice(response.model);
        return response;
      },
      (error: unknown) => {
        throw this.failure(error, options.signal);
      },
    );
  }

  async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    try {
      for await (const event of this.inner.stream(request, options)) {
        if (event.type === 'response') {
          checkUsage(event.response);
          if (event.response.costUsd === undefined) this.checkPrice(event.response.model);
        }
        yield event;
      }
    } catch (error) {
      throw this.failure(error, options.signal);
    }
  }

  private failure(error: unknown, signal: AbortSignal | undefined): unknown {
    const { redact } = this.options;
    return redact && !signal?.aborted ? redactDeep(error, redact) : error;
  }

  private checkPrice(model: string): void {
    if (this.warned.has(model) || priceOf(model, this.options.prices, this.inner.price)) return;
    this.warned.add(model);
    process.emitWarning(
      `agentstate: no price is known for model "${model}": its runs report costUsd undefined ` +
        'and a maxCostUsd budget cannot be enforced for it. Add its price with withPrices() ' +
        "(AgentOptions.prices) or the model's own `price` option.",
      { type: 'UnpricedModelWarning', code: UNPRICED_MODEL_WARNING },
    );
  }
}

/** `code` of the warning emitted for a model without a known price. */
export const UNPRICED_MODEL_WARNING = 'AGENTSTATE_UNPRICED_MODEL';
