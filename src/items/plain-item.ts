import type { Item } from './item.js';

/** An optional field: absent (`{}`), present and of its type (`{ key: value }`), else `undefined`. */
function optional<K extends string, T>(
  value: Record<string, unknown>,
  key: K,
  type: 'string' | 'boolean',
): Partial<Record<K, T>> | undefined {
  if (!(key in value)) return {};
  const field = value[key];
  return typeof field === type ? ({ [key]: field } as Partial<Record<K, T>>) : undefined;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * The common items (a text message, a tool call, a tool result) checked by hand exactly as the
 * `Item` schema would: the item as the schema outputs it (its known fields only, in the
 * schema's order), or `undefined` for anything else (another kind, a field of the wrong type,
 * a message with content parts), which the caller then validates with the schema, so a bad
 * value gets the schema's error. Loading a long history validates thousands of items at once:
 * in a cold process the schema costs ~5 us an item (zod compiles its parsers on first use),
 * this well under 1 us.
 */
export function plainItem(value: unknown): Item | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  switch (fields.type) {
    case 'message': {
      const { role, content } = fields;
      if (!isString(content)) return undefined;
      if (role === 'user' || role === 'developer' || role === 'system') {
        return { type: 'message', role, content };
      }
      if (role !== 'assistant') return undefined;
      const agent = optional<'agent', string>(fields, 'agent', 'string');
      return agent && { type: 'message', role, content, ...agent };
    }
    case 'tool_call': {
      const { callId, name, arguments: args } = fields;
      if (!isString(callId) || !isString(name) || !isString(args)) return undefined;
      const agent = optional<'agent', string>(fields, 'agent', 'string');
      return agent && { type: 'tool_call', callId, name, arguments: args, ...agent };
    }
    case 'tool_result': {
      const { callId, name, output } = fields;
      if (!isString(callId) || !isString(name) || !isString(output)) return undefined;
      const isError = optional<'isError', boolean>(fields, 'isError', 'boolean');
      return isError && { type: 'tool_result', callId, name, output, ...isError };
    }
    default:
      return undefined;
  }
}
