/**
 * Compile-time comparison of two object types as stored (plain JSON), for a TypeScript type and
 * the zod schema that checks the same stored value (`persistence/stored-shapes.ts`). Mutual
 * assignability alone misses a field added on one side as optional, so the shapes are compared
 * key by key: the same keys, the same ones that JSON may leave out (optional, or possibly
 * `undefined`), each field's type assignable both ways, down through nested objects and array
 * elements (a few levels: a recursive shape such as an error's `cause` is followed that far).
 */

/** How many levels down the comparison goes, counted down (`never` stops it). */
type Levels = [never, 0, 1, 2, 3, 4, 5];

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/** What the comparison looks into: arrays and plain objects; unions and the rest it does not. */
type Kind<T> = [T] extends [readonly unknown[]]
  ? 'array'
  : true extends IsUnion<T>
    ? 'other'
    : [T] extends [(...args: never[]) => unknown]
      ? 'other'
      : [T] extends [object]
        ? 'object'
        : 'other';

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/**
 * Whether the stored JSON may leave key `K` out: an optional key, or one whose value may be
 * `undefined` (which JSON leaves out), such as a usage's `costUsd: number | undefined`.
 */
type MayBeAbsent<T, K extends keyof T> =
  K extends OptionalKeys<T> ? true : undefined extends T[K] ? true : false;
type Element<T> = T extends readonly (infer E)[] ? E : never;
type At<P extends string> = P extends '' ? '(root)' : P;
type Join<P extends string, K> = P extends '' ? `${K & string}` : `${P}.${K & string}`;

/**
 * Where the type `A` and the schema's output `B` differ, as `path: what` strings; `never` when
 * they are the same shape.
 */
export type ShapeDiff<A, B, P extends string = '', L extends number = 6> = [L] extends [never]
  ? never
  : Compared<Exclude<A, undefined>, Exclude<B, undefined>, P, Levels[L]>;

/** Two objects key by key, two arrays element by element, anything else both ways. */
type Compared<A, B, P extends string, L extends number> = [Kind<A>, Kind<B>] extends [
  'object',
  'object',
]
  ? ObjectDiff<A, B, P, L>
  : [Kind<A>, Kind<B>] extends ['array', 'array']
    ? ShapeDiff<Element<A>, Element<B>, `${P}[]`, L>
    : [A] extends [B]
      ? [B] extends [A]
        ? never
        : `${At<P>}: a value of the schema does not fit the type`
      : `${At<P>}: a value of the type does not fit the schema`;

type ObjectDiff<A, B, P extends string, L extends number> =
  | { [K in Exclude<keyof A, keyof B>]: `${Join<P, K>}: only in the type` }[Exclude<
      keyof A,
      keyof B
    >]
  | { [K in Exclude<keyof B, keyof A>]: `${Join<P, K>}: only in the schema` }[Exclude<
      keyof B,
      keyof A
    >]
  | {
      [K in keyof A & keyof B]: MayBeAbsent<A, K> extends MayBeAbsent<B, K>
        ? ShapeDiff<A[K], B[K], Join<P, K>, L>
        : `${Join<P, K>}: optional on one side only`;
    }[keyof A & keyof B];

/** `true` when `A` and `B` are the same shape, else where they differ (see `ShapeDiff`). */
export type SameShape<A, B> = [ShapeDiff<A, B>] extends [never] ? true : ShapeDiff<A, B>;

/** Compiles only when given `true`: `Tied<SameShape<A, B>>` fails to compile where they differ. */
export type Tied<T extends true> = T;
