/**
 * Tool names a model provider accepts. Providers allow `[A-Za-z0-9_-]`, 64 characters at most (OpenAI and Anthropic
 * both); MCP names may hold `.` and `/` and run to 128. Each name is made safe, and names that meet after that are
 * told apart by a numbered suffix.
 */

/** The longest tool name providers accept. */
export const maxLength = 64

const unsafe = /[^A-Za-z0-9_-]/g

/** The name as a provider accepts it (never empty). */
const safe = (name: string): string => {
  const replaced = name.replace(unsafe, "_").slice(0, maxLength)
  return replaced.length === 0 ? "tool" : replaced
}

/** A provider-safe, unique name for each of `names`, in order. */
export const providerNames = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return names.map((name) => {
    const base = safe(name)
    let candidate = base
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`
      candidate = base.slice(0, maxLength - suffix.length) + suffix
    }
    taken.add(candidate)
    return candidate
  })
}
