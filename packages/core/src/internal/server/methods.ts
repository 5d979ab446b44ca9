/**
 * The server's method table: the handler of every client request a session answers, each typed by its method's row
 * of `Method.ClientRequests` (see handler.ts). One table for every session and every era; the gate (dispatch.ts)
 * decides which requests reach it.
 */
import { type Mcp, McpError, Method, Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Pagination from "../pagination.js"
import type { AnyHandler, Handler, ServerMethod } from "./handler.js"
import { listen } from "./listen.js"
import { invalidParams, methodNotFound, record, tasksExtension } from "./meta.js"
import type { SessionState } from "./state.js"
import { ownerOf, startTask, taskHandlers } from "./tasks.js"

/** One page of a list, under `key`, with the next cursor when more remain. */
const listed = <A, K extends string>(
  session: SessionState,
  items: ReadonlyArray<A>,
  params: { readonly cursor?: string } | undefined,
  key: K
): Effect.Effect<{ readonly [P in K]: ReadonlyArray<A> } & { readonly nextCursor?: string }, McpError.McpError> =>
  Effect.map(
    Pagination.page(items, params?.cursor, session.server.options.pageSize ?? 100),
    (p) =>
      (p.nextCursor === undefined ? { [key]: p.items } : { [key]: p.items, nextCursor: p.nextCursor }) as
        & { readonly [P in K]: ReadonlyArray<A> }
        & { readonly nextCursor?: string }
  )

const completion = (values: ReadonlyArray<string>) => ({
  completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 }
})

/** `tools/call`: the call itself, or (when the client asks for one and the tool allows it) a task that runs it. */
const callTool: Handler<"tools/call"> = (session, params, ctx) => {
  const name = params.name
  const t = session.server.tool(name)
  if (t === undefined) {
    return Effect.fail(invalidParams(`Unknown tool: ${McpError.quote(name)}`))
  }
  const support = t.descriptor.execution?.taskSupport ?? "forbidden"
  const call = t.call(params.arguments, ctx)
  const rev = ctx.revision
  if (Revision.isStateless(rev)) {
    // 2026: the server makes a task when the request declares the extension and the tool supports tasks.
    const declared = record(record(ctx.clientCapabilities).extensions)[tasksExtension] !== undefined
    if (declared && support !== "forbidden") {
      return Effect.map(startTask(session, call, ctx, undefined), (task) => ({ resultType: "task" as const, ...task }))
    }
    return support === "required"
      ? Effect.fail(methodNotFound(`tools/call of ${name} without the ${tasksExtension} extension`))
      : call
  }
  const asTask = params.task !== undefined && Method.info("tasks/get")?.revisions.includes(rev) === true
  if (asTask && support === "forbidden") {
    return Effect.fail(methodNotFound(`tools/call of ${name} as a task (the tool does not support tasks)`))
  }
  if (!asTask && support === "required") {
    return Effect.fail(methodNotFound(`tools/call of ${name} without a task (the tool requires one)`))
  }
  if (!asTask) {
    return call
  }
  const ttl = params.task?.ttl
  return Effect.map(startTask(session, call, ctx, typeof ttl === "number" ? ttl : undefined), (task) => ({ task }))
}

/** The handler of each client→server request method (one table for every session). */
const handlers: { readonly [M in ServerMethod]: Handler<M> } = {
  "ping": () => Effect.succeed({}),
  "server/discover": (session) =>
    Effect.sync(() => {
      const instructions = session.server.options.instructions
      return {
        supportedVersions: [...Revision.all],
        capabilities: session.server.capabilities(),
        ...(instructions === undefined ? {} : { instructions })
      }
    }),
  "subscriptions/listen": listen,
  "logging/setLevel": (session, params) =>
    Effect.sync(() => {
      session.logLevel = params.level
      return {}
    }),
  "tools/list": (session, params) => listed(session, session.server.tools().map((t) => t.descriptor), params, "tools"),
  "tools/call": callTool,
  ...taskHandlers,
  "tasks/list": (session, params, ctx) =>
    Effect.flatMap(
      session.runtime.tasks.list(ownerOf(session, ctx)),
      (tasks) => listed(session, tasks, params, "tasks")
    ),
  "resources/list": (session, params, ctx) =>
    Effect.gen(function*() {
      const server = session.server
      const listedByTemplates = yield* Effect.forEach(
        server.templates().filter((t) => t.list !== undefined),
        (t) => t.list!(ctx)
      )
      const all: ReadonlyArray<Mcp.Resource> = [
        ...server.resources().map((r) => r.descriptor),
        ...listedByTemplates.flat()
      ]
      return yield* listed(session, all, params, "resources")
    }),
  "resources/templates/list": (session, params) =>
    listed(session, session.server.templates().map((t) => t.descriptor), params, "resourceTemplates"),
  "resources/read": (session, params, ctx) => {
    const uri = params.uri
    const exact = session.server.resource(uri)
    if (exact !== undefined) return exact.read(ctx)
    for (const t of session.server.templates()) {
      const read = t.read(uri, ctx)
      if (read !== undefined) return read
    }
    return Effect.fail(new McpError.ResourceNotFound({ message: `Resource not found: ${McpError.quote(uri)}`, uri }))
  },
  "resources/subscribe": (session, params) =>
    Effect.sync(() => {
      ;(session.subscriptions ??= new Set()).add(params.uri)
      return {}
    }),
  "resources/unsubscribe": (session, params) =>
    Effect.sync(() => {
      session.subscriptions?.delete(params.uri)
      return {}
    }),
  "prompts/list": (session, params) =>
    listed(session, session.server.prompts().map((p) => p.descriptor), params, "prompts"),
  "prompts/get": (session, params, ctx) => {
    const name = params.name
    const p = session.server.prompt(name)
    return p === undefined
      ? Effect.fail(invalidParams(`Unknown prompt: ${McpError.quote(name)}`))
      : p.get(params.arguments, ctx)
  },
  "completion/complete": (session, params, ctx) => {
    const { argument, ref } = params
    const args = params.context?.arguments ?? {}
    if (ref.type === "ref/prompt") {
      const p = session.server.prompt(ref.name)
      if (p === undefined) return Effect.fail(invalidParams(`Unknown prompt: ${McpError.quote(ref.name)}`))
      return Effect.map(p.complete(argument.name, argument.value, args, ctx), completion)
    }
    const t = session.server.templates().find((t) => t.descriptor.uriTemplate === ref.uri)
    if (t === undefined) return Effect.fail(invalidParams(`Unknown resource template: ${McpError.quote(ref.uri)}`))
    return Effect.map(t.complete(argument.name, argument.value, args, ctx), completion)
  }
}

/** The handler of a request method, if the table has one (ask the gate: only client requests may be looked up). */
export const handlerOf = (method: string): AnyHandler | undefined =>
  (handlers as unknown as Readonly<Record<string, AnyHandler>>)[method]
