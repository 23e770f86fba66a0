/** A key range: `gte <= key < lt`, in ascending key order unless `reverse`. */
export interface KvRange {
  gte: string;
  lt: string;
  /** Stop after this many entries. @default unlimited */
  limit?: number | undefined;
  /** @default false */
  reverse?: boolean | undefined;
}
