/**
 * Content negotiation of the MCP endpoint: whether a request body is JSON (`Content-Type`), and which of the two
 * forms of an answer, a JSON body or an SSE stream, the client accepts (`Accept`, RFC 9110 §12.5.1: media ranges,
 * wildcards, `q=0` for "not this", the most specific range deciding; no header at all accepts anything).
 */

/** Whether a `Content-Type` names JSON: `application/json`, any case, parameters (such as `charset`) allowed. */
export const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  if (contentType === "application/json") return true
  // One media type, not a list: a comma anywhere makes the header something else.
  if (contentType.includes(",")) return false
  const semicolon = contentType.indexOf(";")
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
  return essence === "application/json"
}

/** Which answers a client accepts. */
export interface Accepted {
  /** A JSON body (`application/json`). */
  readonly json: boolean
  /** An SSE stream (`text/event-stream`). */
  readonly sse: boolean
}

const both: Accepted = { json: true, sse: true }

/** One media range of an `Accept` header: its type and subtype (lower case, `*` for a wildcard) and its weight. */
interface Range {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

const token = /^[!#$%&'*+.^_`|~0-9a-z-]+$/

const parseRange = (text: string): Range | undefined => {
  const [media = "", ...params] = text.split(";")
  const slash = media.indexOf("/")
  if (slash === -1) return undefined
  const type = media.slice(0, slash).trim().toLowerCase()
  const subtype = media.slice(slash + 1).trim().toLowerCase()
  if (!token.test(type) || !token.test(subtype) || (type === "*" && subtype !== "*")) return undefined
  let q = 1
  for (const param of params) {
    const eq = param.indexOf("=")
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "q") continue
    const value = Number(param.slice(eq + 1).trim())
    q = Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0
    break
  }
  return { type, subtype, q }
}

/** Whether the ranges accept `type/subtype`: the most specific range that matches it decides, by its weight. */
const accepts = (ranges: ReadonlyArray<Range>, type: string, subtype: string): boolean => {
  let specificity = -1
  let q = 0
  for (const r of ranges) {
    const s = r.type === type && r.subtype === subtype
      ? 2
      : r.type === type && r.subtype === "*"
      ? 1
      : r.type === "*"
      ? 0
      : -1
    if (s > specificity) {
      specificity = s
      q = r.q
    }
  }
  return q > 0
}

/** What an `Accept` header accepts of the endpoint's answers (no header, or an empty one, accepts both). */
export const accepted = (accept: string | undefined): Accepted => {
  if (accept === undefined || accept.trim() === "" || accept === "application/json, text/event-stream") return both
  const ranges: Array<Range> = []
  for (const part of accept.split(",")) {
    const range = parseRange(part)
    if (range !== undefined) ranges.push(range)
  }
  return { json: accepts(ranges, "application", "json"), sse: accepts(ranges, "text", "event-stream") }
}

/**
 * How a POST that carries requests is answered, given the server's response mode: in the form the client accepts,
 * the mode deciding when it accepts both; `undefined` when it accepts neither (406). A request whose answer can only
 * be a stream (`needsStream`) is answered as SSE, or `undefined` when the client does not accept it.
 */
export const answerAs = <Mode extends string>(
  accept: Accepted,
  mode: Mode,
  needsStream: boolean
): Mode | "json" | "sse" | undefined =>
  needsStream
    ? accept.sse ? "sse" : undefined
    : accept.json && accept.sse
    ? mode
    : accept.json
    ? "json"
    : accept.sse
    ? "sse"
    : undefined
