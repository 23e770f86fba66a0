import type { AgentCard } from '@a2a-js/sdk';
import type { Agent } from '../agent/agent.js';
import type { A2ACardOptions } from './a2a-handler-options.js';

/** The A2A protocol versions the handler serves on its JSON-RPC URL. */
export const SERVED_VERSIONS = ['1.0', '0.3'] as const;

/**
 * The agent card of an agent served over A2A: its name, a description, its skills (given, else
 * one per tool: name and description), streaming on, text in and out, and the JSON-RPC
 * interface at `card.url` for each served protocol version.
 */
export function agentCardOf(agent: Agent<unknown>, card: A2ACardOptions): AgentCard {
  const name = card.name ?? agent.options.name;
  const skills =
    card.skills ??
    (agent.options.tools ?? []).map((t) => ({
      id: t.name,
      name: t.name,
      description: t.description,
    }));
  return {
    name,
    description: card.description ?? `The ${name} agent, served by agentstate`,
    supportedInterfaces: SERVED_VERSIONS.map((protocolVersion) => ({
      url: card.url,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version: card.version ?? agent.options.version ?? '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [...(('tags' in s && s.tags) || [])],
      examples: [...(('examples' in s && s.examples) || [])],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}
