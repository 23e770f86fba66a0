/**
 * A value built at its first use instead of at import, then the same value every time: for
 * what the package builds once and never changes (its machine definitions), so a process that
 * imports the package without running an agent (the CLI, the inspector, a script that lists
 * sessions) does not pay for it. The built value is process-wide on purpose, like an import:
 * it is immutable, holds no identity or configuration, and building it again could change
 * nothing a caller sees.
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
