/**
 * W3C Trace Context in `params._meta`, as the OpenTelemetry MCP conventions carry it: `traceparent` (and `tracestate`)
 * written into what a connection sends, and read from what it receives as the remote parent of its span. A malformed
 * `traceparent` is ignored (the span starts a trace of its own), never an error.
 */
import { Json } from "@effect-mcp/schema"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** The `tracestate` that came with a remote parent, kept in its context to be passed on downstream. */
class TraceState extends Context.Tag("@effect-mcp/core/TraceState")<TraceState, string>() {}

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/
const zeros = /^0+$/

// What the pattern captures: the whole, version, trace id, parent id, flags, and what a later version appends.
type TraceparentParts = readonly [string, string, string, string, string, string | undefined]

/** The remote parent named by a `_meta`'s `traceparent`, if it names a valid one. */
export const parentFrom = (params: Record<string, unknown> | undefined): Tracer.ExternalSpan | undefined => {
  const meta = params?._meta
  if (!Json.isRecord(meta) || typeof meta.traceparent !== "string") return undefined
  const match = traceparentPattern.exec(meta.traceparent)
  if (match === null) return undefined
  const [, version, traceId, spanId, flags, rest] = match as unknown as TraceparentParts
  // Version ff is invalid; version 00 has nothing after the flags; all-zero ids are invalid.
  if (version === "ff" || (version === "00" && rest !== undefined) || zeros.test(traceId) || zeros.test(spanId)) {
    return undefined
  }
  const state = typeof meta.tracestate === "string" && meta.tracestate.length <= 512 ? meta.tracestate : undefined
  return Tracer.externalSpan({
    traceId,
    spanId,
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    ...(state === undefined ? {} : { context: Context.make(TraceState, state) })
  })
}

/** `params` with `span` written into its `_meta` as `traceparent` (and the `tracestate` its trace came with). */
export const inject = (
  params: Record<string, unknown> | undefined,
  span: Tracer.Span
): Record<string, unknown> => {
  const meta = Json.isRecord(params?._meta) ? params._meta : {}
  const state = traceStateOf(span)
  return {
    ...params,
    _meta: {
      ...meta,
      traceparent: `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`,
      ...(state === undefined ? {} : { tracestate: state })
    }
  }
}

/** The `tracestate` of the remote parent `span` descends from, if it had one. */
const traceStateOf = (span: Tracer.AnySpan): string | undefined => {
  let current: Tracer.AnySpan | undefined = span
  while (current !== undefined) {
    if (current._tag === "ExternalSpan") return Option.getOrUndefined(Context.getOption(current.context, TraceState))
    current = Option.getOrUndefined(current.parent)
  }
  return undefined
}
