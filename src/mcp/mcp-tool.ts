import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import { McpCallError } from '../errors/run-errors.js';
import { causeText } from '../errors/agentstate-error.js';
import type { AnyTool, NeedsApproval } from '../tools/tool.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpToolDescription } from './mcp-tool-list-cache.js';
import { mcpToolOutput } from './mcp-tool-output.js';

/** The arguments an MCP tool receives: a JSON object. */
export type McpToolArguments = Record<string, unknown>;

/**
 * Whether a call of an MCP tool needs a human's approval: a boolean for all the server's tools,
 * or a function of the tool's name (as the server names it) and the call's arguments.
 */
export type McpNeedsApproval =
  | boolean
  | ((toolName: string, args: McpToolArguments, context: RunContext) => boolean | Promise<boolean>);

export interface McpToolSetup {
  toolkit: string;
  /** The name the model calls it by (the server's name, prefixed and made model-safe). */
  name: string;
  connection: McpConnection;
  validator: AjvJsonSchemaValidator;
  needsApproval: McpNeedsApproval;
}

/**
 * A zod schema that accepts what `schema` (a JSON Schema from the server) accepts, so an MCP
 * tool's arguments are checked like a local tool's: a mismatch is a tool error item the model
 * reads, and the server is not called. A schema that does not compile rejects every call.
 */
function argumentsSchema(
  schema: JsonSchemaType,
  validator: AjvJsonSchemaValidator,
): z.ZodType<McpToolArguments> {
  let validate: (input: unknown) => string | undefined;
  try {
    const compiled = validator.getValidator(schema);
    validate = (input) => {
      const result = compiled(input);
      return result.valid ? undefined : result.errorMessage;
    };
  } catch (error) {
    const problem = `the server's input schema does not compile (${causeText(error)})`;
    validate = () => problem;
  }
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = validate(value);
    if (problem === undefined) return;
    for (const { path, message } of validationIssues(problem)) {
      ctx.addIssue({ code: 'custom', path, message });
    }
  });
}

/**
 * The SDK's validator reports ajv's `errorsText`: `data/a must be number, data/b must be >=
 * 0`. Split into one issue per error, with its path, as zod reports a local tool's.
 */
function validationIssues(text: string): { path: string[]; message: string }[] {
  return text.split(/, (?=data[/ ])/).map((part) => {
    const match = /^data(\S*) (.*)$/s.exec(part);
    if (!match) return { path: [], message: part };
    const path = match[1]!.split('/').filter(Boolean).map(decodePointer);
    return { path, message: match[2]! };
  });
}

/** A JSON Pointer segment, unescaped. */
const decodePointer = (segment: string): string =>
  segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** The JSON Schema the model is shown: the server's, without its `$schema` dialect tag. */
function modelSchema(description: McpToolDescription): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = description.inputSchema as Record<string, unknown>;
  return schema;
}

/** An agent tool that calls `description` on the MCP server through `setup.connection`. */
export function mcpTool(description: McpToolDescription, setup: McpToolSetup): AnyTool {
  const { toolkit, connection, needsApproval } = setup;
  const serverName = description.name;
  const rule: NeedsApproval<McpToolArguments> =
    typeof needsApproval === 'function'
      ? (args, context) => needsApproval(serverName, args, context)
      : needsApproval;
  return Object.freeze({
    name: setup.name,
    description: description.description ?? description.title ?? serverName,
    parameters: argumentsSchema(description.inputSchema as JsonSchemaType, setup.validator),
    jsonSchema: modelSchema(description),
    needsApproval: rule,
    // The server's hint makes a call in doubt after a crash run again (else it fails).
    ...(description.annotations?.idempotentHint === undefined
      ? {}
      : { idempotent: description.annotations.idempotentHint }),
    execute: async (args: McpToolArguments, { signal }: { signal: AbortSignal }) => {
      const result = await connection.callTool(serverName, args, signal);
      const output = mcpToolOutput(result);
      if (result.isError) {
        throw new McpCallError(toolkit, serverName, 'tool_error', output || 'the tool failed');
      }
      return output;
    },
  });
}
