/**
 * Tag normalisation and keys shared by MetricID and the registry.
 *
 * @module
 */
import { Tag, type TagsInput } from "../tag.ts";
import { checkTagName } from "./names.ts";

/** Compares strings by UTF-16 code units, as Java's `String.compareTo`. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Converts {@linkcode TagsInput} to sorted `[name, value]` pairs, checking the
 * names. The last value of a repeated name wins.
 */
export function normalizeTags(
  tags: TagsInput | undefined | null,
): [string, string][] {
  if (tags == null) return [];
  const map = new Map<string, string>();
  if (Array.isArray(tags)) {
    for (const tag of tags as readonly Tag[]) {
      if (tag == null) continue;
      if (!(tag instanceof Tag)) checkTagName((tag as Tag).name);
      map.set(tag.name, String(tag.value));
    }
  } else {
    for (const name of Object.keys(tags)) {
      const value = (tags as Record<string, string>)[name];
      if (value == null) continue;
      checkTagName(name);
      map.set(name, String(value));
    }
  }
  const pairs = [...map];
  if (pairs.length > 1) pairs.sort((a, b) => compareStrings(a[0], b[0]));
  return pairs;
}

/** The key of a series inside one name: its tag values in name order. */
export function tagValuesKey(
  tags: readonly (readonly [string, string])[],
): string {
  let key = "";
  for (const tag of tags) key += tag[1] + "\u0001";
  return key;
}

/** The key of an ID: name and tags, unambiguous. */
export function idKey(
  name: string,
  tags: readonly (readonly [string, string])[],
): string {
  let key = name;
  for (const [n, v] of tags) key += "\u0000" + n + "\u0001" + v;
  return key;
}
