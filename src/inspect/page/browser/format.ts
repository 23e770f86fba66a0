import { h } from './dom.js';
import type { Usage } from './api-types.js';

/** Epoch ms as `YYYY-MM-DD hh:mm:ss` (UTC); nothing for no time. */
export function time(ms: number | null | undefined): string {
  return ms === undefined || ms === null
    ? ''
    : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** A duration in ms or seconds; nothing for none. */
export function dur(ms: number | null | undefined): string {
  if (ms === undefined || ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A cost in dollars to six places; `n/a` when unknown. */
export function usd(v: number | null | undefined): string {
  return v === undefined || v === null ? 'n/a' : `$${Number(v).toFixed(6)}`;
}

/** `<in> in / <out> out` tokens; nothing for no usage. */
export function tokens(u: Usage | null | undefined): string {
  return u ? `${u.inputTokens} in / ${u.outputTokens} out` : '';
}

/** A value as indented JSON in a `<pre>`. */
export function json(value: unknown): HTMLPreElement {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}
