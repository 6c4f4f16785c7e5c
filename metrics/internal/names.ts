/**
 * Name rules shared by tags, scopes and the registry.
 *
 * @module
 */
import { InvalidNameError } from "../errors.ts";

/** Tag and scope names (MicroProfile Metrics 5.1 architecture, "Tags" and "Scopes"). */
export const NAME_PATTERN: RegExp = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Tag names the implementation adds itself; an application may not use them. */
export const RESERVED_TAG_NAMES: ReadonlySet<string> = new Set([
  "mp_scope",
  "mp_app",
]);

/** Throws unless `name` is a valid tag name. */
export function checkTagName(name: string): void {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new InvalidNameError(
      "INVALID_NAME",
      `Cannot use tag name "${name}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
    );
  }
}

/** Throws unless `scope` is a valid scope name. */
export function checkScopeName(scope: string): void {
  if (typeof scope !== "string" || !NAME_PATTERN.test(scope)) {
    throw new InvalidNameError(
      "INVALID_NAME",
      `Cannot use scope "${scope}": it must match [a-zA-Z_][a-zA-Z0-9_]*`,
    );
  }
}
