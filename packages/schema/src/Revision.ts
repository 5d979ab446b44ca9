/**
 * The MCP protocol revisions effect-mcp speaks, and how they relate.
 */
import * as Schema from "effect/Schema"

/** Every supported revision, oldest first. */
export const all = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const

/** A supported MCP protocol revision. */
export type Revision = typeof all[number]

/** Schema of a supported revision string. */
export const Revision = Schema.Literal(...all)

/** The newest revision. */
export const latest: Revision = "2026-07-28"

/** The first stateless revision (no handshake, per-request `_meta`). */
export const stateless: Revision = "2026-07-28"

/** The revisions that begin with an `initialize` handshake, oldest first. */
export const handshake: ReadonlyArray<Revision> = all.filter((r) => r < stateless)

/** The newest handshake revision. */
export const latestHandshake: Revision = handshake[handshake.length - 1]!

/** Whether a string names a supported revision. */
export const isRevision = (s: unknown): s is Revision =>
  typeof s === "string" && (all as ReadonlyArray<string>).includes(s)

/** Whether `revision` is `since` or newer (revision names are ISO dates, so they order as strings). */
export const atLeast = (revision: Revision, since: Revision): boolean => revision >= since

/** Whether a revision is stateless (2026-07-28 and later). */
export const isStateless = (revision: Revision): boolean => revision >= stateless
