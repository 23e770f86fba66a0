/** A child `h` and `append` take: a node, text (a number is shown as text), a list, or nothing. */
export type Child = Node | string | number | null | undefined | false | Child[];

/** An attribute value; `on<event>` attributes take a listener. */
export type Attr = string | number | boolean | null | undefined | ((event: Event) => void);

/**
 * An element with attributes and children: `text` sets its text, `on<event>` adds a listener,
 * `true` is an empty attribute, and `false`, `null` and `undefined` are left out.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, Attr>,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, ...children);
  return el;
}

/** Appends children to `el`, lists flattened, text as text nodes. */
export function append(el: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, ...child);
    else el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Empties `el` and returns it. */
export function clear<E extends Node>(el: E): E {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** The page's element with this id (the page's skeleton and its views always render it). */
export function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The page has no #${id}`);
  return el;
}
