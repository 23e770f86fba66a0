/**
 * The names the docs' TypeScript blocks use without defining them, declared once for the
 * type check (docs/README.md says so to readers): an app's model, store, agent, runtime and
 * tools, and the types of the two third-party packages the docs show that this repository
 * does not install (`@ai-sdk/anthropic`, `pino`), as those packages declare them.
 */
export const DOCS_GLOBALS = `
declare const model: import('agentstate-runtime').Model;
declare const store: import('agentstate-runtime').SessionStore;
declare const agent: import('agentstate-runtime').Agent;
declare const runtime: import('agentstate-runtime').SessionRuntime;
declare const tools: import('agentstate-runtime').AnyTool[];

declare module '@ai-sdk/anthropic' {
  export function anthropic(modelId: string): import('@ai-sdk/provider').LanguageModelV3;
}
declare module 'pino' {
  interface Pino {
    debug(fields: object, message?: string): void;
    info(fields: object, message?: string): void;
    warn(fields: object, message?: string): void;
    error(fields: object, message?: string): void;
  }
  export default function pino(): Pino;
}
`;
