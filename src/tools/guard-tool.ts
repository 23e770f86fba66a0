import type { RunContext } from '../core/run-context.js';
import { redactDeep, type Redact } from '../errors/redact-deep.js';
import { errorText } from './invoke-tool.js';
import type { AnyTool, ToolExecuteOptions } from './tool.js';

/** Where a tool failed, as `onToolError` receives it. */
export interface ToolErrorInfo {
  toolName: string;
  /** `execute` threw, or the `needsApproval` function did (the run then fails). */
  phase: 'execute' | 'needsApproval';
  /** The model's call id; absent for `needsApproval`, which runs before the call is keyed. */
  callId?: string | undefined;
  context: RunContext;
}

/** Receives the full, unredacted error of a tool that threw. */
export type ToolErrorHook = (error: unknown, info: ToolErrorInfo) => void;

export interface ToolErrorPolicy {
  /** Scrubs the error text the model reads (and the run stores) from the app's secrets. */
  redact?: Redact | undefined;
  onToolError?: ToolErrorHook | undefined;
}

/**
 * `t` with its failures routed by `policy`: the app's `onToolError` receives the full error,
 * while what goes on (the tool error item the model reads, or the failed run's stored error)
 * has passed through `redact`. Cancellations pass unchanged. Errors the hook itself throws are
 * ignored: a logging hook must not change what the model sees.
 */
export function guardTool(t: AnyTool, policy: ToolErrorPolicy): AnyTool {
  const { redact, onToolError } = policy;
  if (!redact && !onToolError) return t;
  const report = (error: unknown, info: ToolErrorInfo): void => {
    try {
      onToolError?.(error, info);
    } catch {
      // see above
    }
  };
  const rule = t.needsApproval;
  return Object.freeze({
    ...t,
    execute: async (args: unknown, options: ToolExecuteOptions) => {
      try {
        return await t.execute(args, options);
      } catch (error) {
        if (options.signal.aborted) throw error;
        const { callId, context } = options;
        report(error, { toolName: t.name, phase: 'execute', callId, context });
        throw redact ? redactOrWrap(error, redact) : error;
      }
    },
    needsApproval:
      typeof rule === 'function'
        ? async (args: unknown, context: RunContext) => {
            try {
              return await rule(args, context);
            } catch (error) {
              report(error, { toolName: t.name, phase: 'needsApproval', context });
              throw redact ? redactOrWrap(error, redact) : error;
            }
          }
        : rule,
  });
}

/** An Error copy scrubbed by `redact`; anything else thrown becomes an Error with its text. */
function redactOrWrap(error: unknown, redact: Redact): Error {
  return error instanceof Error ? redactDeep(error, redact) : new Error(redact(errorText(error)));
}
