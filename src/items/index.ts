export * from './item.js';
