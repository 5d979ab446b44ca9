/**
 * What arrives at the client transport: each message of an answer goes to the engine, except the responses to the
 * transport's own requests (kept for them) and the tools of a stateless `tools/list` whose `x-mcp-header`
 * annotations are invalid (dropped, the others' mirrored parameters remembered); a request that got no answer is
 * settled with what the transport saw instead (see `../clientFailure.ts`).
 */
import { Transport } from "@effect-mcp/core"
import { Json, JsonRpc, McpError } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberMap from "effect/FiberMap"
import type * as McpHttpClient from "../../McpHttpClient.js"
import * as ClientFailure from "../clientFailure.js"
import * as ParamHeaders from "../paramHeaders.js"
import * as Wire from "../wire.js"
import type { ClientState } from "./state.js"

/** A 2026 `tools/list` result without the tools whose `x-mcp-header` annotations are invalid. */
export const screenTools = (client: ClientState, response: Record<string, unknown>) =>
  Effect.gen(function*() {
    const result = Json.record(response.result)
    if (!Array.isArray(result.tools)) return response
    const kept: Array<unknown> = []
    for (const tool of result.tools) {
      const name = McpError.quote(Json.record(tool).name)
      const found = ParamHeaders.find(Json.record(tool).inputSchema)
      if (Either.isLeft(found)) {
        yield* Effect.logWarning(`effect-mcp: ignoring tool ${name}: ${found.left}`)
        continue
      }
      client.mirrored.set(name, found.right)
      kept.push(tool)
    }
    return { ...response, result: { ...result, tools: kept } }
  })

/** Hands a message (or batch) from the server on: to the transport's own request it answers, or to the engine. */
export const receive = (client: ClientState, message: unknown): Effect.Effect<void> =>
  Effect.suspend(() => {
    const items: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
    let forward = true
    for (const m of items) {
      if (!JsonRpc.looksLikeResponse(m)) continue
      // A response whose id is not a request id answers nothing of ours: none of these maps can hold it.
      const id = JsonRpc.salvageId(m)
      if (id === null) continue
      const hook = client.internal.get(id)
      if (hook !== undefined) {
        client.internal.delete(id)
        hook(m)
        forward = false
        continue
      }
      if (FiberMap.unsafeHas(client.exchanges, id)) client.answered.add(id)
      if (client.initialize !== undefined && id === client.initialize.id) {
        const version = Json.record(m.result).protocolVersion
        if (typeof version === "string") client.protocolVersion = version
      }
    }
    if (!forward) return Effect.void
    const single = JsonRpc.looksLikeResponse(message) ? JsonRpc.salvageId(message) : null
    const screened = single !== null && client.stateless.get(single) === "tools/list"
      ? screenTools(client, message as Record<string, unknown>)
      : Effect.succeed(message)
    return Effect.flatMap(screened, (m) =>
      Effect.sync(() => {
        client.incoming.push(Transport.frame(m))
      }))
  })

/** Hands the text of one message on; text that is not JSON reaches the engine as a malformed frame. */
export const receiveText = (client: ClientState, data: string) => {
  const parsed = Wire.parseJson(data)
  return Either.isRight(parsed)
    ? receive(client, parsed.right)
    : Effect.sync(() => {
      client.incoming.push(Transport.malformed(parsed.left))
    })
}

/** Fails our request `id` with what the transport saw instead of an answer (no JSON-RPC error is made up). */
export const fail = (client: ClientState, id: JsonRpc.RequestId, failure: Transport.RequestError) =>
  Effect.sync(() => void client.incoming.push(Transport.failed(id, failure)))

/** A request that got no answer: the network failed, or its stream ended first. */
export const lost = (client: ClientState, id: JsonRpc.RequestId, reason: string, cause?: unknown) =>
  fail(client, id, new Transport.TransportError(cause === undefined ? { reason } : { reason, cause }))

/** Settles request `id` by an HTTP error answer: the server's JSON-RPC error, or what the status means. */
export const errorAnswer = (
  client: ClientState,
  id: JsonRpc.RequestId,
  response: McpHttpClient.IncomingResponse,
  text: string,
  session: string | undefined
) => {
  const meaning = ClientFailure.classify({ status: response.status, headers: response.headers, text }, session)
  return meaning._tag === "JsonRpc"
    ? receive(client, { ...meaning.body, jsonrpc: "2.0", id })
    : fail(client, id, meaning.failure)
}
