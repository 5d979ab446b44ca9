/**
 * A bounded stand-in for a peer's value in an error message: formatting a value prints all of it, so a value
 * nested thousands of levels deep overflows the stack and a large one is reflected back whole.
 */

/** At most this many levels, items (of an array or object) and characters (of a string) are kept. */
const maxLevels = 2
const maxItems = 4
const maxChars = 40

/** A copy of `value` cut to a few levels, items and characters; what was cut is marked with "…". */
export const preview = (value: unknown, levels: number = maxLevels): unknown => {
  if (typeof value === "string") return value.length > maxChars ? `${value.slice(0, maxChars)}…` : value
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    if (levels <= 0) return value.length === 0 ? [] : ["…"]
    const kept = value.slice(0, maxItems).map((item) => preview(item, levels - 1))
    return value.length > maxItems ? [...kept, "…"] : kept
  }
  const out: Record<string, unknown> = {}
  let count = 0
  for (const key in value) {
    if (levels <= 0 || count === maxItems) {
      out["…"] = "…"
      break
    }
    out[preview(key) as string] = preview((value as Record<string, unknown>)[key], levels - 1)
    count++
  }
  return out
}
