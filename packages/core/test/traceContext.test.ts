/**
 * W3C trace context in `params._meta`, read by a tracing server from a raw peer: a request's `traceparent` parents the
 * handler's span, the requests the handler makes on its behalf carry the same trace (and the `tracestate` it came
 * with), and a malformed `traceparent` starts a trace of its own without failing anything.
 */
import { McpServer, McpTelemetry, RequestContext } from "@effect-mcp/core"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { rawPeer } from "./helpers.js"

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const parentId = "00f067aa0ba902b7"

/** Asks the client for its roots, then returns the trace its own span is in. */
const Traced = McpServer.tool({
  name: "traced",
  input: Schema.Struct({}),
  handler: () =>
    Effect.gen(function*() {
      yield* RequestContext.listRoots
      const span = yield* Effect.option(Effect.currentSpan)
      return Option.match(span, { onNone: () => "none none", onSome: (s) => `${s.traceId} ${s.spanId}` })
    })
})

const server = Traced.pipe(Layer.provideMerge(McpServer.layer({ name: "trace-test", version: "1" })))

/** Calls `traced` with `meta`, answers the roots request it makes, and returns that request and the tool's text. */
const callWith = (meta: Record<string, unknown>, traced = true) =>
  Effect.gen(function*() {
    const peer = yield* rawPeer(traced ? Layer.provide(server, McpTelemetry.layer) : server)
    yield* peer.handshake("2025-11-25", { roots: {} })
    yield* peer.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "traced", arguments: {}, _meta: meta }
    })
    const asked = yield* peer.next
    expect(asked.method).toBe("roots/list")
    yield* peer.send({ jsonrpc: "2.0", id: asked.id, result: { roots: [] } })
    const answer = yield* peer.next
    expect(answer.id).toBe(1)
    const [trace, span] = String(answer.result.content[0].text).split(" ")
    return { asked, trace, span }
  })

describe("trace context in _meta", () => {
  it.scoped("a request's traceparent parents its span; what the handler asks carries the trace and its tracestate", () =>
    Effect.gen(function*() {
      const { asked, span, trace } = yield* callWith({
        traceparent: `00-${traceId}-${parentId}-01`,
        tracestate: "vendor=opaque"
      })
      expect(trace).toBe(traceId)
      expect(span).not.toBe(parentId)
      // The roots request's parent is a span of this trace below the request's (the handler's span, or its own).
      const [version, askedTrace, askedParent, flags] = String(asked.params._meta.traceparent).split("-")
      expect([version, askedTrace, flags]).toEqual(["00", traceId, "01"])
      expect(askedParent).toMatch(/^[0-9a-f]{16}$/)
      expect(askedParent).not.toBe(parentId)
      expect(asked.params._meta.tracestate).toBe("vendor=opaque")
    }))

  for (
    const [why, traceparent] of [
      ["not a traceparent", "garbage"],
      ["an all-zero trace id", `00-${"0".repeat(32)}-${parentId}-01`],
      ["version ff", `ff-${traceId}-${parentId}-01`],
      ["a number", 42]
    ] as const
  ) {
    it.scoped(`a malformed traceparent (${why}) starts a trace of its own`, () =>
      Effect.gen(function*() {
        const { asked, trace } = yield* callWith({ traceparent, tracestate: "vendor=opaque" })
        expect(trace).toMatch(/^[0-9a-f]{32}$/)
        expect(trace).not.toBe(traceId)
        expect(trace).not.toBe("0".repeat(32))
        expect(String(asked.params._meta.traceparent).split("-")[1]).toBe(trace)
        // The tracestate of a parent that was refused is not passed on.
        expect(asked.params._meta.tracestate).toBeUndefined()
      }))
  }

  it.scoped("a server that does not trace passes nothing on", () =>
    Effect.gen(function*() {
      const { asked, trace } = yield* callWith({ traceparent: `00-${traceId}-${parentId}-01` }, false)
      expect(trace).toBe("none")
      expect(asked.params?._meta?.traceparent).toBeUndefined()
    }))
})
