/**
 * The HTTP handler for chat UIs: `createChatHandler` answers web-standard `Request`s with
 * `Response`s in the AI SDK UI message stream protocol (`useChat` works against it) and, on its
 * `/agui` route, in AG-UI events (AG-UI's `HttpAgent` works against it), and `toNodeListener`
 * serves it from Node's `http`. A subpath of its own so the root import never loads it.
 */
export { createChatHandler, type ChatHandler } from './http/chat-handler.js';
export type { ChatHandlerOptions } from './http/chat-handler-options.js';
export { toNodeListener } from './http/node-listener.js';
export { HttpError, type HttpErrorStatus } from './http/http-error.js';
export type { UiMessageChunk } from './http/ui-message-chunk.js';
export type { UiMessage, UiPart } from './http/ui-history.js';
export type { AguiEvent, AguiInterrupt, AguiMessage } from './http/agui-event.js';
