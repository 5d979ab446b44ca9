/**
 * Where a session's outgoing messages go: a response to the POST stream that awaits it (the last one it awaits ends
 * the stream), a message related to a request to that request's stream (unless it is answered as JSON), anything
 * else to the standalone stream; each one kept in the event store unless it is answered as a JSON body, which cannot
 * be replayed. Also the form each POST stream is answered in, and how a stream that gets no response ends.
 */
import type { Transport } from "@effect-mcp/core"
import { JsonRpc } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import type * as EventStore from "../../EventStore.js"
import * as Outbox from "../outbox.js"
import type { AnswerForm } from "./config.js"
import type { Session } from "./session.js"

/** Whether a POST whose first message is `final` (or not) is answered as JSON rather than as an SSE stream. */
export const answersAsJson = (as: AnswerForm, final: boolean): boolean => as === "json" || (as !== "sse" && final)

/** The ids of the responses in an outgoing message or batch. */
const responseIds = (message: Transport.Outgoing): ReadonlyArray<JsonRpc.RequestId> => {
  const items: ReadonlyArray<JsonRpc.Message> = Array.isArray(message) ? message : [message as JsonRpc.Message]
  const ids: Array<JsonRpc.RequestId> = []
  for (const m of items) if (JsonRpc.isResponse(m) && m.id !== null) ids.push(m.id)
  return ids
}

/** The routing of one endpoint's sessions. */
export interface Routing {
  /** The form a POST stream is answered in. */
  readonly formOf: (stream: Outbox.OutStream) => AnswerForm
  /** Answers a POST stream in another form than the response mode's (what its client accepts). */
  readonly setForm: (stream: Outbox.OutStream, as: AnswerForm) => void
  /** Sends a message on a stream of a session, keeping it in the event store when it can be replayed. */
  readonly push: (
    s: Session,
    target: Outbox.OutStream,
    message: Transport.Outgoing,
    final: boolean
  ) => Effect.Effect<void>
  /** Ends a POST stream that will get no response (cancelled, or its session ended). */
  readonly endStream: (s: Session, target: Outbox.OutStream) => Effect.Effect<void>
  /** Sends an outgoing message of a session's connection to the stream it belongs on. */
  readonly deliver: (
    s: Session,
    message: Transport.Outgoing,
    related: JsonRpc.RequestId | undefined
  ) => Effect.Effect<void>
}

/** The routing of sessions answered in `mode` by default, with an event store when streams are resumable. */
export const make = (mode: AnswerForm, store: EventStore.EventStoreService | undefined): Routing => {
  // POST streams answered in another form than the response mode's, because of what their client accepts.
  const forms = new WeakMap<Outbox.OutStream, "json" | "sse">()
  const formOf = (stream: Outbox.OutStream) => forms.get(stream) ?? mode
  const setForm = (stream: Outbox.OutStream, as: AnswerForm) => {
    if (as !== mode && as !== "auto") forms.set(stream, as)
  }

  // A message a POST is answered with as JSON (its first, or any in "json" mode) can never be replayed (a JSON
  // answer has no event id), so the store does not keep it.
  const answeredAsJson = (s: Session, target: Outbox.OutStream, seq: number, final: boolean) =>
    target !== s.standalone && (seq === 0 ? answersAsJson(formOf(target), final) : formOf(target) === "json")

  // Plain code around the one offer when nothing is stored (every message of the "echo over HTTP" rows): a generator
  // here was one of a session call's three (docs/benchmarks.md, "HTTP shared costs, session 23").
  const push = (s: Session, target: Outbox.OutStream, message: Transport.Outgoing, final: boolean) =>
    Effect.suspend(() => {
      const seq = Outbox.nextSeq(target)
      const queue = () => {
        if (final && !Outbox.isAttached(target)) s.streams.delete(target.key)
        return Outbox.offer(target, { seq, message, final })
      }
      if (store === undefined || answeredAsJson(s, target, seq, final)) return queue()
      // A message the store cannot keep still goes out live; it only cannot be replayed.
      return Effect.catchAll(
        store.append(s.id, target.key, seq, message),
        (error) => Effect.logWarning("effect-mcp: the event store could not keep a message", error)
      ).pipe(Effect.zipRight(Effect.suspend(queue)))
    })

  const endStream = (s: Session, target: Outbox.OutStream) =>
    Effect.suspend(() => {
      for (const id of Outbox.abandon(target)) s.routes.delete(id)
      if (!Outbox.isAttached(target)) s.streams.delete(target.key)
      return Outbox.end(target)
    })

  const deliver = (s: Session, message: Transport.Outgoing, related: JsonRpc.RequestId | undefined) =>
    Effect.suspend(() => {
      if (!Array.isArray(message)) {
        const single = message as JsonRpc.Message
        if (JsonRpc.isResponse(single) && single.id === s.initializeId && "result" in single) {
          const version = single.result.protocolVersion
          if (typeof version === "string") s.revision = version
        }
      }
      const ids = responseIds(message)
      let target: Outbox.OutStream | undefined
      for (const id of ids) {
        target = s.routes.get(id)
        if (target !== undefined) break
      }
      if (target === undefined && ids.length === 0 && related !== undefined) {
        const stream = s.routes.get(related)
        if (stream !== undefined && formOf(stream) !== "json") target = stream
      }
      if (target === undefined) {
        if (ids.length > 0) return Effect.logDebug(`effect-mcp: dropped a response for request ${ids.join(", ")}`)
        target = s.standalone
      }
      for (const id of ids) if (Outbox.settle(target, id)) s.routes.delete(id)
      const final = target !== s.standalone && ids.length > 0 && Outbox.settled(target)
      return push(s, target, message, final)
    })

  return { formOf, setForm, push, endStream, deliver }
}
