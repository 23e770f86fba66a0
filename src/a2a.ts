/**
 * Agents over the A2A protocol (with the official `@a2a-js/sdk`, an optional peer): an agent
 * served over A2A (`createA2AHandler` on web-standard `Request` / `Response`, `toNodeListener`
 * for Node's `http`), and a remote A2A agent as a local sub-agent, durable across crashes
 * (`remoteAgent`). A subpath of its own so the root import never loads the SDK.
 */
export { createA2AHandler, type A2AHandler } from './a2a/a2a-handler.js';
export type { A2AHandlerOptions, A2ACardOptions, A2ASkill } from './a2a/a2a-handler-options.js';
export { remoteAgent, type RemoteAgentOptions } from './a2a/remote-agent.js';
export type { RemoteApproval, RemoteDecision, RemoteUsage } from './a2a/a2a-convention.js';
export { toNodeListener } from './http/node-listener.js';
