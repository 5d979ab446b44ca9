/**
 * The era classifier: which protocol era a request on the MCP endpoint speaks, hence which module serves it. A
 * request is stateless (2026-07-28) when its `MCP-Protocol-Version` header names that revision or a later date, or
 * when its body names a revision in `_meta` (an `initialize` never is); anything else belongs to a handshake session.
 */
import { Json, Revision } from "@effect-mcp/schema"
import * as Wire from "../wire.js"

/** Whether an `MCP-Protocol-Version` header names the stateless revision (or a later date). */
export const isStatelessHeader = (version: string | undefined): boolean =>
  version !== undefined &&
  (Revision.isRevision(version) ? Revision.isStateless(version) : /^\d{4}-\d{2}-\d{2}$/.test(version) &&
    version >= Revision.stateless)

/** Whether a POST (its parsed body and its `MCP-Protocol-Version` header) is a stateless request. */
export const isStatelessPost = (body: unknown, version: string | undefined): boolean =>
  Array.isArray(body)
    ? isStatelessHeader(version)
    : Json.record(body).method !== "initialize" && (Wire.metaRevision(body) !== undefined || isStatelessHeader(version))
