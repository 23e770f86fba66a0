/** An async method as a wrapper receives it: bound to its object. */
export type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * `target` with its method `name` replaced by `wrap(original)`, every other member forwarded
 * (methods bound to `target`): a store with one call watched, held or cut short, passed in
 * where the real one would be (a fake passed in, never a module mock).
 */
export function wrappedMethod<T extends object>(
  target: T,
  name: keyof T & string,
  wrap: (original: Method) => Method,
): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as Method).bind(object);
      return property === name ? wrap(bound) : bound;
    },
  });
}
