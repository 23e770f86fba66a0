/**
 * Agents over the Agent2Agent protocol (A2A) with the official SDK (`@a2a-js/sdk`, an optional
 * peer): `createA2AHandler` serves an agent, answering web-standard `Request`s with `Response`s
 * (JSON-RPC, the agent card), and `toNodeListener` serves it from Node's `http`; `remoteAgent`
 * makes a remote A2A agent a local sub-agent, durable across crashes. A subpath of its own so the
 * root import never loads the SDK.
 */
export { createA2AHandler, type A2AHandler } from './a2a/a2a-handler.js';
export type { A2AHandlerOptions, A2ACardOptions, A2ASkill } from './a2a/a2a-handler-options.js';
export { remoteAgent, type RemoteAgentOptions } from './a2a/remote-agent.js';
export type { A2AApproval, A2ADecision, A2AUsage } from './a2a/a2a-convention.js';
export { toNodeListener } from './http/node-listener.js';
