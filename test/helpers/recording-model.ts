import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from '../../src/models/model.js';

/**
 * A model that keeps `JSON.stringify(request)` of every call at the moment it was made, then
 * answers as `inner` does: the exact bytes a model received.
 */
export class RecordingModel implements Model {
  readonly sent: string[] = [];
  readonly name: string;
  readonly provider: string | undefined;
  readonly price: Model['price'];

  constructor(private readonly inner: Model) {
    this.name = inner.name;
    this.provider = inner.provider;
    this.price = inner.price;
  }

  generate(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
    this.sent.push(JSON.stringify(request));
    return this.inner.generate(request, options);
  }

  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent> {
    this.sent.push(JSON.stringify(request));
    return this.inner.stream(request, options);
  }
}
