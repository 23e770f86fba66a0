import type { Logger } from 'openai/client';
import { redactDeep, type Redact } from '../errors/redact-deep.js';

/**
 * A logger for the `openai` client that scrubs every message and argument before passing it
 * on: the SDK logs raw stream chunks it cannot parse (and, with `OPENAI_LOG=debug`, response
 * bodies), which may echo the API key.
 */
export function redactingLogger(target: Logger, redact: () => Redact): Logger {
  const level =
    (name: keyof Logger) =>
    (message: string, ...rest: unknown[]): void => {
      const scrub = redact();
      target[name](scrub(message), ...rest.map((value) => redactDeep(value, scrub)));
    };
  return { error: level('error'), warn: level('warn'), info: level('info'), debug: level('debug') };
}
