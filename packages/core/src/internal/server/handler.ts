/**
 * The type of a method handler, by method name: the client requests the server's method table answers, the params
 * each handler receives and the result it answers, as `Method.ClientRequests` types them.
 */
import type { Mcp, McpError, Method } from "@effect-mcp/schema"
import type * as Effect from "effect/Effect"
import type { RequestContextImpl } from "../requestContextImpl.js"
import type { SessionState } from "./state.js"

/** A client request the method table answers (`initialize` is the handshake's own). */
export type ServerMethod = Exclude<keyof Method.ClientRequests, "initialize">

/** The params a handler of `M` receives, as the gate decoded them for the request's revision. */
export type Params<M extends ServerMethod> = Method.ClientRequests[M]["params"]

/** A result before 2026-07-28 spells it: the stateless dispatch adds `resultType`, cache hints and the server's identity. */
type Undecorated<R> = R extends { readonly resultType: string } ?
    & Omit<R, "resultType" | "ttlMs" | "cacheScope">
    & { readonly resultType?: string; readonly ttlMs?: number; readonly cacheScope?: "private" | "public" }
  : R

/** What `tools/call` answers: the tool's result, or the task that runs it (2025-11-25's, or the 2026 extension's). */
export type ToolCallAnswer =
  | Mcp.CallToolResult
  | Mcp.CreateTaskResult
  | (Mcp.Task & { readonly resultType: "task" })

/** The result a handler of `M` answers, in the domain model (dispatch encodes it for the request's revision). */
export type Answer<M extends ServerMethod> = M extends "tools/call" ? ToolCallAnswer
  : Undecorated<Method.ClientRequests[M]["result"]>

/** The handler of method `M`. */
export type Handler<M extends ServerMethod> = (
  session: SessionState,
  params: Params<M>,
  ctx: RequestContextImpl
) => Effect.Effect<Answer<M>, McpError.McpError>

/** A handler as dispatch calls it, for a method known only at run time (the gate has decoded its params). */
export type AnyHandler = (
  session: SessionState,
  params: unknown,
  ctx: RequestContextImpl
) => Effect.Effect<unknown, McpError.McpError>
