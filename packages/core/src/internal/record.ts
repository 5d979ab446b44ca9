/**
 * Reading plain objects off the wire: the one check that a value is a JSON object, and a view of any value as one.
 */

/** Whether a value is a plain object (not null, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A value as a plain object: itself when it is one, else an empty object. */
export const record = (u: unknown): Record<string, unknown> => (isRecord(u) ? u : {})
