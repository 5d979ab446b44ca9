/**
 * PromiseClient: an McpClient for code outside Effect. Every call returns a Promise that resolves with the call's
 * result or rejects with its typed failure itself (an `McpError`, `ConnectionClosed`, a transport's error, a
 * `Tool.ToolError`, ...), never a wrapper. `connect` builds a client Layer and hands back the client; `make` wraps a
 * client an Effect program already has.
 *
 * Its calls run on a few long-lived fibers, reused from call to call, rather than a fiber each: this is cheaper than an
 * `Effect.runPromise` per call (docs/benchmarks.md, "PromiseClient, session 24"). A call given an `AbortSignal` is
 * cancelled when the signal aborts, on the wire too, and rejects with the signal's reason.
 */
import type { Mcp, Method, Revision } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { ConnectionClosed } from "./Errors.js"
import type * as TypedCalls from "./internal/client/typedCalls.js"
import * as Pool from "./internal/promisePool.js"
import * as McpClient from "./McpClient.js"
import type * as Prompt from "./Prompt.js"
import type * as Tool from "./Tool.js"

/** Options of one call: the client's, and a signal that cancels it. */
export interface CallOptions extends McpClient.CallOptions {
  /** Cancels the call when it aborts (the server is told); the Promise rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** How a PromiseClient runs its calls. */
export interface Options {
  /** How many idle fibers it keeps for the next calls (default 64): calls beyond them in flight start more. */
  readonly idleWorkers?: number
}

/** A connected MCP client whose calls return Promises. */
export interface PromiseClient {
  /** The Effect client underneath, for Streams and tasks (or `run`). */
  readonly client: McpClient.McpClientService
  /** The negotiated revision. */
  readonly revision: Revision.Revision
  /** The server's self-description. */
  readonly serverInfo: Mcp.Implementation
  /** The server's capabilities. */
  readonly serverCapabilities: Mcp.ServerCapabilities
  /** The server's instructions, if any. */
  readonly instructions: string | undefined
  /** Sends any client→server request by method name, with domain-typed params and result. */
  request<M extends keyof Method.ClientRequests>(
    method: M,
    params: Method.ClientRequests[M]["params"],
    options?: CallOptions
  ): Promise<Method.ClientRequests[M]["result"]>
  /** Pings the server. */
  ping(options?: CallOptions): Promise<void>
  /** Every tool, following every page. */
  listTools(): Promise<ReadonlyArray<Mcp.Tool>>
  /** Calls a tool; validates any `structuredContent` against the tool's `outputSchema` when known. */
  callTool(name: string, args?: Readonly<Record<string, unknown>>, options?: CallOptions): Promise<Mcp.CallToolResult>
  /** Calls a tool from its definition: the input encoded, the output decoded, a declared failure decoded. */
  call<I, II, O, OI, F = never, FI = never>(
    tool: TypedCalls.ToolContract<I, II, O, OI, F, FI> & { readonly output: Schema.Schema<O, OI, never> },
    input: I,
    options?: CallOptions
  ): Promise<O>
  /** Calls a tool without an output schema from its definition: the input encoded, a declared failure decoded. */
  call<I, II, F = never, FI = never>(
    tool: TypedCalls.ToolContract<I, II, never, never, F, FI> & { readonly output?: undefined },
    input: I,
    options?: CallOptions
  ): Promise<Mcp.CallToolResult>
  /** Every resource, following every page. */
  listResources(): Promise<ReadonlyArray<Mcp.Resource>>
  /** Every resource template, following every page. */
  listResourceTemplates(): Promise<ReadonlyArray<Mcp.ResourceTemplate>>
  /** Reads a resource. */
  readResource(uri: string, options?: CallOptions): Promise<Mcp.ReadResourceResult>
  /** Subscribes to updates of a resource. */
  subscribe(uri: string): Promise<void>
  /** Ends a subscription. */
  unsubscribe(uri: string): Promise<void>
  /** Every prompt, following every page. */
  listPrompts(): Promise<ReadonlyArray<Mcp.Prompt>>
  /** Gets a prompt by name. */
  getPrompt(name: string, args?: Readonly<Record<string, string>>, options?: CallOptions): Promise<Mcp.GetPromptResult>
  /** Gets a prompt from its definition, its arguments encoded with its schema. */
  getPrompt<A, I extends Prompt.Arguments, F = never, FI = never>(
    prompt: TypedCalls.PromptContract<A, I, F, FI>,
    args: A,
    options?: CallOptions
  ): Promise<Mcp.GetPromptResult>
  /** Asks for completions of an argument. */
  complete(params: Mcp.CompleteRequestParams): Promise<Mcp.CompleteResult>
  /** Sets the level of the log messages the server sends. */
  setLoggingLevel(level: Mcp.LoggingLevel): Promise<void>
  /** Runs any Effect that needs the client (a Stream drained, a task awaited) and settles with its outcome. */
  run<A, E>(effect: Effect.Effect<A, E, McpClient.McpClient>, options?: { readonly signal?: AbortSignal }): Promise<A>
  /**
   * Stops: calls still running are interrupted and reject with `ConnectionClosed`, as do later ones. From `connect`
   * this closes the connection too; from `make`, the connection is its scope's.
   */
  close(): Promise<void>
}

/** What calls reject with once the client is closed. */
const closedError = () => new ConnectionClosed({ reason: "the client was closed" })

/** The options a call passes on to the Effect client: all but the signal. */
const forClient = (options: CallOptions | undefined): McpClient.CallOptions | undefined => {
  if (options?.signal === undefined) return options
  const { signal: _, ...rest } = options
  return rest
}

/** A PromiseClient over `client`, its calls run by `pool`, closed by `close`. */
class Promised implements PromiseClient {
  constructor(
    readonly client: McpClient.McpClientService,
    private readonly pool: Pool.Pool,
    readonly close: () => Promise<void>
  ) {}
  get revision() {
    return this.client.revision
  }
  get serverInfo() {
    return this.client.serverInfo
  }
  get serverCapabilities() {
    return this.client.serverCapabilities
  }
  get instructions() {
    return this.client.instructions
  }
  request<M extends keyof Method.ClientRequests>(
    method: M,
    params: Method.ClientRequests[M]["params"],
    options?: CallOptions
  ) {
    return this.pool.run(this.client.request(method, params, forClient(options)), options?.signal)
  }
  ping(options?: CallOptions) {
    return this.pool.run(this.client.ping(forClient(options)), options?.signal)
  }
  listTools() {
    return this.pool.run(this.client.listTools())
  }
  callTool(name: string, args?: Readonly<Record<string, unknown>>, options?: CallOptions) {
    return this.pool.run(this.client.callTool(name, args, forClient(options)), options?.signal)
  }
  call<I, II, O, OI, F, FI>(tool: TypedCalls.ToolContract<I, II, O, OI, F, FI>, input: I, options?: CallOptions) {
    const call = this.client.call as (
      tool: TypedCalls.ToolContract<I, II, O, OI, F, FI>,
      input: I,
      options?: McpClient.CallOptions
    ) => Effect.Effect<never, F | Tool.ToolError | McpClient.McpClientError>
    return this.pool.run(call(tool, input, forClient(options)), options?.signal)
  }
  listResources() {
    return this.pool.run(this.client.listResources())
  }
  listResourceTemplates() {
    return this.pool.run(this.client.listResourceTemplates())
  }
  readResource(uri: string, options?: CallOptions) {
    return this.pool.run(this.client.readResource(uri, forClient(options)), options?.signal)
  }
  subscribe(uri: string) {
    return this.pool.run(this.client.subscribe(uri))
  }
  unsubscribe(uri: string) {
    return this.pool.run(this.client.unsubscribe(uri))
  }
  listPrompts() {
    return this.pool.run(this.client.listPrompts())
  }
  getPrompt<A, I extends Prompt.Arguments, F, FI>(
    prompt: string | TypedCalls.PromptContract<A, I, F, FI>,
    args?: A | Readonly<Record<string, string>>,
    options?: CallOptions
  ) {
    const get = this.client.getPrompt as (
      prompt: string | TypedCalls.PromptContract<A, I, F, FI>,
      args?: A | Readonly<Record<string, string>>,
      options?: McpClient.CallOptions
    ) => Effect.Effect<Mcp.GetPromptResult, F | McpClient.McpClientError>
    return this.pool.run(get(prompt, args, forClient(options)), options?.signal)
  }
  complete(params: Mcp.CompleteRequestParams) {
    return this.pool.run(this.client.complete(params))
  }
  setLoggingLevel(level: Mcp.LoggingLevel) {
    return this.pool.run(this.client.setLoggingLevel(level))
  }
  run<A, E>(effect: Effect.Effect<A, E, McpClient.McpClient>, options?: { readonly signal?: AbortSignal }) {
    return this.pool.run(Effect.provideService(effect, McpClient.McpClient, this.client), options?.signal)
  }
}

/**
 * A PromiseClient over a client an Effect program has, for Promise code it hands the client to. It runs its calls in
 * the current runtime (its context and fiber refs) until the current scope closes or `close` is called; the
 * connection stays the scope's.
 */
export const make = (
  client: McpClient.McpClientService,
  options: Options = {}
): Effect.Effect<PromiseClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const pool = yield* Pool.make(closedError, options.idleWorkers).pipe(Scope.extend(scope))
    return new Promised(client, pool, () => Effect.runPromise(Scope.close(scope, Exit.void)))
  })

/**
 * Connects with a client Layer (a transport provided: `McpClient.layer(...)` over `StdioClientTransport.layer(...)`,
 * `McpTest.layer(Server)`, ...) and resolves with the connected client, or rejects with what building it failed with
 * (the handshake's `HandshakeFailed`, a transport's error). `close` closes the connection.
 */
export const connect = <E>(
  layer: Layer.Layer<McpClient.McpClient, E, never>,
  options: Options = {}
): Promise<PromiseClient> =>
  Effect.runPromiseExit(
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope).pipe(
        Effect.tapErrorCause((cause) => Scope.close(scope, Exit.failCause(cause)))
      )
      const client = Context.get(context, McpClient.McpClient)
      const pool = yield* Pool.make(closedError, options.idleWorkers).pipe(Scope.extend(scope))
      return new Promised(client, pool, () => Effect.runPromise(Scope.close(scope, Exit.void)))
    })
  ).then((exit) => Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause)))
