import { userInfo } from 'node:os';

/** The operator's login name, for the audit log's `by` (none when the OS has no such user). */
export function operator(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
