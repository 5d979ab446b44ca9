/**
 * One request's exchange over Streamable HTTP: POST it, read its answer (JSON or SSE), and resume a cut answer stream
 * with `Last-Event-ID`. A 404 on the session renews it and sends the request again (once, and only when the server
 * cannot have run it); the first refusal of a server that is not Streamable HTTP switches to the legacy transport; a
 * 2026-07-28 `tools/call` refused for a mirrored parameter we did not send learns the tools' parameters and retries
 * once. A request that gets no answer is settled with what happened instead.
 */
import { Transport } from "@effect-mcp/core"
import { Json, type JsonRpc } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ClientFailure from "../clientFailure.js"
import * as Answer from "./answer.js"
import * as GetStream from "./getStream.js"
import * as Inbound from "./inbound.js"
import * as Legacy from "./legacy.js"
import * as Outgoing from "./outgoing.js"
import * as Session from "./session.js"
import * as State from "./state.js"

/** Requests that may be resent when their fate is unknown (the session died while they were in flight). */
const idempotent = new Set([
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "server/discover"
])

/** Lists the tools statelessly on the transport's own account, to learn their `x-mcp-header` parameters. */
const refreshTools = (client: State.ClientState, meta: unknown) =>
  Effect.gen(function*() {
    let cursor: unknown
    for (let page = 0; page < 100; page++) {
      const id = `effect-mcp-tools-list-${client.nextInternalId++}`
      let result: Record<string, unknown> | undefined
      client.internal.set(id, (m) => void (result = m))
      const params = { ...(typeof cursor === "string" ? { cursor } : {}), _meta: meta }
      const response = yield* Outgoing.post(client, { jsonrpc: "2.0", id, method: "tools/list", params })
      yield* Answer.read(client, response, State.cursor()).pipe(
        Effect.ensuring(Effect.sync(() => client.internal.delete(id)))
      )
      if (result === undefined) return
      yield* Inbound.screenTools(client, result)
      cursor = Json.record(result.result).nextCursor
      if (typeof cursor !== "string") return
    }
  })

/**
 * Sends request `request` and hands its answer to the engine; `rev` is its revision when it is sent statelessly. Run
 * it with `forget` observing its fiber.
 */
export const exchange = (
  client: State.ClientState,
  request: JsonRpc.Request,
  rev: string | undefined
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const id = request.id
    for (let attempt = 0;; attempt++) {
      const stale = client.sessionId
      if (client.mode === "legacy") return yield* Effect.orDie(Legacy.send(client, request, id))
      const sent = yield* Effect.either(Outgoing.post(client, request))
      if (Either.isLeft(sent)) {
        return yield* Inbound.lost(client, id, `the request could not be sent: ${sent.left.reason}`, sent.left.cause)
      }
      const response = sent.right
      if (response.status === 404 && rev === undefined && stale !== undefined && attempt === 0) {
        // The server never saw this request: continue under a new session and send it again.
        const renewed = yield* Effect.either(Session.reinitialize(client, stale))
        if (Either.isLeft(renewed)) return yield* Inbound.fail(client, id, renewed.left)
        continue
      }
      if (response.status < 200 || response.status >= 300) {
        const text = yield* Answer.errorText(client, response)
        const status = response.status
        if (
          client.mode === "probing" && (status === 400 || status === 404 || status === 405) &&
          ClientFailure.jsonRpcError(text) === undefined
        ) {
          // Not a Streamable HTTP server: try the deprecated HTTP+SSE transport at the same URL.
          if (yield* Legacy.open(client)) continue
        }
        const code = Json.record(ClientFailure.jsonRpcError(text)?.error).code
        if (rev !== undefined && request.method === "tools/call" && code === -32020 && attempt === 0) {
          // The tool may mirror parameters we have not heard of: learn them from tools/list, then retry once.
          yield* Effect.ignore(refreshTools(client, Json.record(request.params)._meta))
          continue
        }
        return yield* Inbound.errorAnswer(client, id, response, text, rev === undefined ? stale : undefined)
      }
      client.mode = "streamable"
      if (request.method === "initialize") {
        const fresh = response.headers["mcp-session-id"]
        if (fresh !== undefined) client.sessionId = fresh
      }
      const cursor = { lastEventId: undefined as string | undefined, retryMs: undefined as number | undefined }
      const read = yield* Effect.either(Answer.read(client, response, cursor))
      if (client.answered.has(id)) return
      if (Either.isLeft(read) && read.left.tooLarge === true) return yield* Inbound.lost(client, id, read.left.reason)
      const ended = `the response stream ended without a response${Either.isLeft(read) ? `: ${read.left.reason}` : ""}`
      if (rev !== undefined) {
        return yield* Inbound.lost(client, id, ended, Either.isLeft(read) ? read.left.cause : undefined)
      }
      const resumed = yield* Effect.either(GetStream.resume(client, cursor, () => client.answered.has(id)))
      if (Either.isRight(resumed) && resumed.right) return
      if (Either.isLeft(resumed) && stale !== undefined) {
        // The server forgot the session while the answer was on its way: a request that is safe to repeat is
        // sent again under a new session; any other may have run, and fails with the session's end.
        const renewed = idempotent.has(request.method) && attempt === 0
          ? yield* Effect.either(Session.reinitialize(client, stale))
          : Either.left(
            new Transport.SessionExpired({
              sessionId: stale,
              reason: `${ended}, and the server no longer knows the session`
            })
          )
        if (Either.isRight(renewed)) continue
        return yield* Inbound.fail(client, id, renewed.left)
      }
      return yield* Inbound.lost(client, id, ended, Either.isLeft(read) ? read.left.cause : undefined)
    }
  })

/**
 * Forgets what the transport kept of request `id` once its exchange's fiber has ended, however it ended: an observer
 * of that fiber, where an `Effect.ensuring` inside it would make every exchange (each call of the "echo over HTTP"
 * rows) an uninterruptible region.
 */
export const forget = (client: State.ClientState, id: JsonRpc.RequestId) => (): void => {
  client.answered.delete(id)
  client.stateless.delete(id)
}
