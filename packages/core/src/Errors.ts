/**
 * Local failures of the engine, client and server (those that never cross the wire as such).
 */
import * as Data from "effect/Data"

/** The connection ended (transport closed, peer exited) while a request was outstanding. */
export class ConnectionClosed extends Data.TaggedError("ConnectionClosed")<{
  readonly reason: string
  /** The child's exit code, when the peer was a process that exited. */
  readonly exitCode?: number
  /** The last lines the peer wrote to stderr, when known. */
  readonly stderrTail?: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** A request needs a capability the peer did not declare; it was not sent. */
export class CapabilityMissing extends Data.TaggedError("CapabilityMissing")<{
  readonly method: string
  /** Whose capability is missing. */
  readonly of: "server" | "client"
  /** The capability path, e.g. `resources.subscribe`. */
  readonly capability: string
}> {
  override get message(): string {
    return `${this.method} needs the ${this.of} capability "${this.capability}", which the ${this.of} did not declare`
  }
}

/** A peer's response did not match the method's result schema, or a local value could not be encoded. */
export class ProtocolViolation extends Data.TaggedError("ProtocolViolation")<{
  readonly reason: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** The handshake failed (no common revision, initialize rejected, discovery failed). */
export class HandshakeFailed extends Data.TaggedError("HandshakeFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.reason
  }
}
