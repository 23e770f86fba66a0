/**
 * The local inspector: `startInspector` serves a self-contained page (sessions, runs, state
 * charts, step timeline, live runs, actions, the app's workflow instances) from the app's own process. A subpath of its own
 * so the root import never loads the HTTP server.
 */
export { startInspector } from './inspect/start-inspector.js';
export type { InspectorOptions, InspectorHandle } from './inspect/inspector-options.js';
export type { LiveFrame } from './inspect/live-feed.js';
export type { InspectedWorkflows } from './inspect/inspector-workflows.js';
