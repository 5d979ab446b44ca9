/**
 * The interop report: what the interop tests ran (which client against which server, over which
 * transport, at which revision, which operation) and whether it passed, rendered as the tables of
 * docs/interop.md. Rendering is deterministic (sorted, no timestamps), so the page changes only
 * when the results do.
 */

/** Which side is ours in a run. */
export type Direction = "our-client" | "their-client"

/** One operation's outcome in one run. */
export interface Outcome {
  /** Which side is ours. */
  readonly direction: Direction
  /** The client that ran (e.g. `effect-mcp McpClient`, `@modelcontextprotocol/sdk 1.32.2 Client`). */
  readonly client: string
  /** The server it ran against. */
  readonly server: string
  /** `stdio` or `streamable-http`. */
  readonly transport: string
  /** The protocol revision the connection negotiated (or asked for, when it never connected). */
  readonly revision: string
  /** What was done (`tools/list`, `progress`, `cancel`, …). */
  readonly operation: string
  /** Whether it did what it should. */
  readonly passed: boolean
  /** Why it is expected to fail, when it is a known failure (the bug it points to). */
  readonly knownBug?: string
}

/** The column order of each table's operations (operations not listed come after, sorted). */
export const operationOrder: ReadonlyArray<string> = [
  "connect",
  "tools/list",
  "tools/call (every tool)",
  "resources/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging",
  "progress",
  "cancel",
  "elicitation",
  "sampling",
  "tasks"
]

const rank = (operation: string) => {
  const i = operationOrder.indexOf(operation)
  return i === -1 ? operationOrder.length : i
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The key of a run: everything but the operation. */
const runKey = (o: Outcome) => [o.client, o.server, o.transport, o.revision].join("\u0000")

/** Keeps the last outcome of each (run, operation), dropping earlier duplicates. */
export const dedupe = (outcomes: ReadonlyArray<Outcome>): ReadonlyArray<Outcome> => {
  const byKey = new Map<string, Outcome>()
  for (const o of outcomes) byKey.set(`${o.direction}\u0000${runKey(o)}\u0000${o.operation}`, o)
  return [...byKey.values()]
}

const cell = (o: Outcome | undefined) =>
  o === undefined ? "—" : o.passed ? "pass" : o.knownBug === undefined ? "**FAIL**" : "**FAIL** (known)"

const table = (outcomes: ReadonlyArray<Outcome>): string => {
  const operations = [...new Set(outcomes.map((o) => o.operation))].sort((a, b) => rank(a) - rank(b) || compare(a, b))
  const runs = new Map<string, Array<Outcome>>()
  for (const o of outcomes) runs.set(runKey(o), [...(runs.get(runKey(o)) ?? []), o])
  const keys = [...runs.keys()].sort(compare)
  const header = `| client | server | transport | revision | ${operations.join(" | ")} |`
  const rule = `|${" --- |".repeat(4 + operations.length)}`
  const rows = keys.map((key) => {
    const run = runs.get(key)!
    const first = run[0]!
    const cells = operations.map((op) => cell(run.find((o) => o.operation === op)))
    return `| ${first.client} | ${first.server} | ${first.transport} | ${first.revision} | ${cells.join(" | ")} |`
  })
  return [header, rule, ...rows].join("\n")
}

const titles: Record<Direction, string> = {
  "our-client": "Our client (McpClient) against the official servers",
  "their-client": "The official clients against our server (examples/everything)"
}

/** Renders docs/interop.md from every recorded outcome. */
export const render = (all: ReadonlyArray<Outcome>, preamble: string): string => {
  const outcomes = dedupe(all)
  const sections = (["our-client", "their-client"] as const).flatMap((direction) => {
    const mine = outcomes.filter((o) => o.direction === direction)
    return mine.length === 0 ? [] : [`## ${titles[direction]}\n\n${table(mine)}\n`]
  })
  const known = outcomes.filter((o) => o.knownBug !== undefined)
  const bugs = [...new Set(known.map((o) => o.knownBug!))].sort(compare)
  const failing = outcomes.filter((o) => !o.passed).length
  const summary = `${outcomes.length} operations recorded, ${outcomes.length - failing} passed, ${failing} failed` +
    (bugs.length === 0 ? "." : ` (${known.length} of them known failures).`)
  const bugSection = bugs.length === 0 ? [] : [`## Known failures\n\n${bugs.map((b) => `- ${b}`).join("\n")}\n`]
  return [preamble.trimEnd() + "\n", `${summary}\n`, ...sections, ...bugSection].join("\n")
}
