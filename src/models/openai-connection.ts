import type OpenAI from 'openai';
import { redactDeep, redactSecrets, type Redact } from '../errors/redact-deep.js';
import { ModelError } from '../errors/run-errors.js';
import { isAbort, toModelError, type OpenAISdk } from './openai-errors.js';
import { redactingLogger } from './redacting-logger.js';

/** How an adapter on the `openai` package reaches the API: the options it shares. */
export interface OpenAIConnectionOptions {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  maxRetries?: number | undefined;
  timeoutMs?: number | undefined;
  client?: OpenAI | undefined;
}

const DEFAULT_MAX_RETRIES = 2;

/**
 * The `openai` client of one adapter (`OpenAIModel`, `openaiEmbedder`), and what keeps its
 * secrets in: the package is loaded at the first call (importing agentstate does not load it),
 * the client is built then unless the caller gave one, with a logger that scrubs what the SDK
 * logs; a failure becomes a {@link ModelError} with the API key and credential header values
 * removed from everything it holds (message, stack, cause chain, body, headers).
 */
export class OpenAIConnection {
  /** What the client is built from (none when given a `client`). */
  private readonly settings: ClientSettings | undefined;
  /** The client, once loaded (the caller's `client` from the start). */
  private client: OpenAI | undefined;
  /** The `openai` package's classes, once loaded (for telling its errors apart). */
  private sdk: OpenAISdk;
  private loading: Promise<OpenAI> | undefined;

  /**
   * @param who The adapter as its user wrote it, e.g. `OpenAIModel` (for the missing key error).
   * @throws ModelError when no API key is given or set and no `baseURL` either.
   */
  constructor(
    who: string,
    private readonly options: OpenAIConnectionOptions,
  ) {
    this.settings = options.client ? undefined : clientSettings(who, options);
    this.client = options.client;
  }

  /** The client: loads the `openai` package at the first call and builds it unless given. */
  load(): Promise<OpenAI> {
    this.loading ??= import('openai').then((sdkModule) => {
      const sdk = sdkModule.default;
      this.sdk = sdk;
      this.client ??= new sdk({
        ...this.settings,
        logger: redactingLogger(globalThis.console, () => this.redact()),
      });
      return this.client;
    });
    return this.loading;
  }

  /** What a failed call throws: aborts unchanged, anything else a ModelError without secrets. */
  failure(error: unknown, signal: AbortSignal | undefined): unknown {
    if (isAbort(error, signal, this.sdk)) return error;
    return redactDeep(toModelError(error, signal, this.sdk), this.redact());
  }

  /** Removes the client's API key and credential header values (read now: keys may rotate). */
  redact(): Redact {
    const client = this.client;
    return redactSecrets([
      this.options.apiKey,
      this.settings?.apiKey,
      client?.apiKey,
      ...(client ? headerSecrets(client) : []),
    ]);
  }

  /** The per-request options: the call's signal, and the adapter's retries and timeout if set. */
  requestOptions(signal: AbortSignal | undefined): OpenAI.RequestOptions {
    const result: OpenAI.RequestOptions = {};
    if (signal) result.signal = signal;
    if (this.options.maxRetries !== undefined) result.maxRetries = this.options.maxRetries;
    if (this.options.timeoutMs !== undefined) result.timeout = this.options.timeoutMs;
    return result;
  }
}

/** The settings of the client the adapter builds (the logger is added when it is built). */
interface ClientSettings {
  apiKey: string;
  baseURL: string | undefined;
  maxRetries: number;
  timeout?: number;
}

function clientSettings(who: string, options: OpenAIConnectionOptions): ClientSettings {
  let apiKey = options.apiKey || process.env['OPENAI_API_KEY'] || undefined;
  const baseURL = options.baseURL || process.env['OPENAI_BASE_URL'] || undefined;
  if (apiKey === undefined) {
    if (baseURL === undefined) {
      throw new ModelError(
        `${who} needs an API key: pass \`apiKey\` or set OPENAI_API_KEY (or pass \`baseURL\` for a local server)`,
      );
    }
    apiKey = 'no-key';
  }
  return {
    apiKey,
    baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  };
}

/** Header names whose values are credentials. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'api-key', 'x-api-key']);

/**
 * Values of credential headers the client sends with every request (a gateway's own
 * `Authorization`, Azure's `api-key`). The SDK keeps them in a protected field; read it
 * defensively, as it is not part of its typed API.
 */
function headerSecrets(client: OpenAI): string[] {
  const headers = (client as unknown as { _options?: { defaultHeaders?: unknown } })._options
    ?.defaultHeaders;
  if (!headers || typeof headers !== 'object') return [];
  const entries: [string, unknown][] =
    headers instanceof Headers
      ? [...headers.entries()]
      : Array.isArray(headers)
        ? headers.filter((e): e is [string, unknown] => Array.isArray(e))
        : Object.entries(headers);
  return entries.flatMap(([name, value]) => {
    if (!CREDENTIAL_HEADERS.has(String(name).toLowerCase()) || typeof value !== 'string') return [];
    // `Bearer <token>`: the token alone, too, in case a message quotes it without the scheme
    const token = value.replace(/^\S+\s+/, '');
    return token === value ? [value] : [value, token];
  });
}
