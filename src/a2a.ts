/**
 * An agent served over the Agent2Agent protocol (A2A) with the official SDK (`@a2a-js/sdk`, an
 * optional peer): `createA2AHandler` answers web-standard `Request`s with `Response`s (JSON-RPC,
 * the agent card), `toNodeListener` serves it from Node's `http`. A subpath of its own so the
 * root import never loads the SDK.
 */
export { createA2AHandler, type A2AHandler } from './a2a/a2a-handler.js';
export type { A2AHandlerOptions, A2ACardOptions, A2ASkill } from './a2a/a2a-handler-options.js';
export type { A2AApproval, A2ADecision, A2AUsage } from './a2a/a2a-convention.js';
export { toNodeListener } from './http/node-listener.js';
