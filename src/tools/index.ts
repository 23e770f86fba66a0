export * from './tool.js';
export * from './toolkit.js';
export * from './invoke-tool.js';
export * from './guard-tool.js';
