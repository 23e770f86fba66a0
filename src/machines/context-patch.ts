/**
 * What an assign of the run machine hands XState: its patch without the keys it would set to
 * `undefined` that the context has not set either. XState copies the whole context at every
 * assign (`Object.assign({}, context, patch)`), and a key once there stays in every later copy,
 * `undefined` or not: a few such keys push the run's context past the size at which V8 makes
 * the copy a dictionary (slow-properties) object, which every later copy, walk and encoding of
 * it then pays for. A key the context holds is still cleared (set to `undefined`); the stored
 * JSON is the same either way (`undefined` is not written).
 */
export function contextPatch<C extends object>(context: C, patch: Partial<C>): Partial<C> {
  let trimmed: Partial<C> | undefined;
  for (const key in patch) {
    if (patch[key] !== undefined || (context as Partial<C>)[key] !== undefined) continue;
    trimmed ??= { ...patch };
    delete trimmed[key];
  }
  return trimmed ?? patch;
}
