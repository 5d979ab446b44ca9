/**
 * The RequestContext a server session gives each request's handler: its data as fields and its operations on a
 * shared prototype, so that a request allocates one object instead of one closure per operation.
 */
import { Json, type JsonRpc, type Mcp, type McpError, type Method, type Revision } from "@effect-mcp/schema"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as RequestContext from "../RequestContext.js"
import type { AuthInfo } from "../Transport.js"

/** A server→client request a handler makes through its context: every request the server sends but `ping`. */
export type AskedMethod = Exclude<keyof Method.ServerRequests, "ping">

/** The client as one request sees it: from the handshake, or from the request's own `_meta` (2026-07-28). */
export interface Peer {
  readonly capabilities: Mcp.ClientCapabilities
  readonly clientInfo: Mcp.Implementation | undefined
  /** The threshold of log messages; `null` means no log messages at all (2026-07-28 without a level). */
  readonly logLevel: () => RequestContext.LoggingLevel | undefined | null
  /**
   * Sends (or, statelessly, asks the client to answer) a server→client request, related to request `relatedId`:
   * typed by the method table, its params are the method's and so is the decoded result.
   */
  readonly ask: <M extends AskedMethod>(
    method: M,
    params: Method.ServerRequests[M]["params"],
    required: Record<string, unknown>,
    satisfied: boolean,
    rev: Revision.Revision,
    relatedId: JsonRpc.RequestId
  ) => Effect.Effect<Method.ServerRequests[M]["result"], McpError.McpError>
}

/** What a request's context needs from its session. */
export interface Owner {
  /** Sends a notification related to a request. */
  readonly notify: (
    method: string,
    rev: Revision.Revision,
    params: unknown,
    related: JsonRpc.RequestId
  ) => Effect.Effect<void>
  /** Whether the server declared the logging capability. */
  readonly logging: () => boolean
}

const isToken = (token: unknown): token is Mcp.ProgressToken => typeof token === "string" || typeof token === "number"

/**
 * The context of one request. The operations are getters that return functions bound to the context, so
 * destructuring them (`const { progress } = ctx`) works as with plain properties.
 */
export class RequestContextImpl implements RequestContext.RequestContextService {
  readonly progressToken: Mcp.ProgressToken | undefined
  readonly clientInfo: Mcp.Implementation | undefined
  readonly clientCapabilities: Mcp.ClientCapabilities
  readonly #owner: Owner
  readonly #peer: Peer
  #controller: AbortController | undefined
  #fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined

  constructor(
    readonly requestId: JsonRpc.RequestId,
    /** The request's id on this connection (the `requestId` unless the transport renumbered it): what related messages name. */
    readonly relatedId: JsonRpc.RequestId,
    readonly method: string,
    readonly revision: Revision.Revision,
    readonly meta: Readonly<Record<string, unknown>>,
    readonly auth: AuthInfo | undefined,
    owner: Owner,
    peer: Peer
  ) {
    const token = meta.progressToken
    this.progressToken = isToken(token) ? token : undefined
    this.clientInfo = peer.clientInfo
    this.clientCapabilities = peer.capabilities
    this.#owner = owner
    this.#peer = peer
  }

  /**
   * Binds the request to the fiber its handler runs on (the first one wins): the signal is aborted when that fiber
   * is interrupted. A fiber observer, only once somebody asks for the signal, rather than an interruption handler
   * around every request (an uninterruptible region per call costs more than the rest of an in-memory call).
   */
  runsOn(fiber: Fiber.RuntimeFiber<unknown, unknown>): void {
    this.#fiber ??= fiber
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
      this.#fiber?.addObserver((exit) => {
        if (Exit.isInterrupted(exit)) controller.abort()
      })
    }
    return this.#controller.signal
  }

  get progress(): RequestContext.RequestContextService["progress"] {
    return (progress, total, message) => {
      const progressToken = this.progressToken
      return progressToken === undefined
        ? Effect.void
        : this.#owner.notify("notifications/progress", this.revision, {
          progressToken,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message })
        }, this.relatedId)
    }
  }

  get log(): RequestContext.RequestContextService["log"] {
    return (level, data, logger) => {
      const threshold = this.#peer.logLevel()
      return !this.#owner.logging() || threshold === null || !RequestContext.passes(level, threshold)
        ? Effect.void
        : this.#owner.notify(
          "notifications/message",
          this.revision,
          { level, data, ...(logger === undefined ? {} : { logger }) },
          this.relatedId
        )
    }
  }

  get elicit(): RequestContext.RequestContextService["elicit"] {
    return (p) => {
      const caps = this.clientCapabilities
      const elicitation = Json.record(caps.elicitation)
      const url = (p as { mode?: string }).mode === "url"
      const has = caps.elicitation !== undefined &&
        (url ? elicitation.url !== undefined : elicitation.url === undefined || elicitation.form !== undefined)
      return this.#peer.ask(
        "elicitation/create",
        p,
        { elicitation: url ? { url: {} } : { form: {} } },
        has,
        this.revision,
        this.relatedId
      )
    }
  }

  get sample(): RequestContext.RequestContextService["sample"] {
    return (p) => {
      const caps = this.clientCapabilities
      const needsTools = p.tools !== undefined && p.tools.length > 0
      const has = caps.sampling !== undefined && (!needsTools || Json.record(caps.sampling).tools !== undefined)
      return this.#peer.ask(
        "sampling/createMessage",
        p,
        { sampling: needsTools ? { tools: {} } : {} },
        has,
        this.revision,
        this.relatedId
      )
    }
  }

  get listRoots(): RequestContext.RequestContextService["listRoots"] {
    return () =>
      this.#peer.ask(
        "roots/list",
        {},
        { roots: {} },
        this.clientCapabilities.roots !== undefined,
        this.revision,
        this.relatedId
      )
  }
}
