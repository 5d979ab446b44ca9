/**
 * A task as Redis keeps it: one JSON string per task (`<prefix>task:<id>`) holding its owner, the process that runs
 * it, its wire state and, once settled, its result or error; a sorted set per owner (`<prefix>tasks:<owner>`, by
 * creation time) for `list` and `release`; and the atomic script that writes a task only while it is not settled,
 * so that a cancellation and the settling of the call, from two processes, cannot both win.
 */
import type { TaskStore } from "@effect-mcp/core"
import { Mcp, McpError } from "@effect-mcp/schema"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Schema from "effect/Schema"

const WireError = Schema.Struct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** One stored task. */
export const TaskRecord = Schema.Struct({
  owner: Schema.String,
  /** The process that runs the task's call. */
  instance: Schema.String,
  task: Mcp.Task,
  result: Schema.optionalWith(Mcp.CallToolResult, { exact: true }),
  error: Schema.optionalWith(WireError, { exact: true })
})

/** One stored task. */
export type TaskRecord = typeof TaskRecord.Type

const TaskRecordJson = Schema.parseJson(TaskRecord)

/** A stored task's JSON read back (a Left when it does not decode). */
export const decode = Schema.decodeUnknownEither(TaskRecordJson)

/** A task's JSON as it is stored. */
export const encode = Schema.encodeSync(TaskRecordJson)

/** The keys of a store under a prefix. */
export const keys = (prefix: string) => ({
  task: (taskId: string) => `${prefix}task:${taskId}`,
  owner: (owner: string) => `${prefix}tasks:${owner}`,
  instance: (instance: string) => `${prefix}instance:${instance}`
})

/**
 * Writes a task only while the stored one has not settled. KEYS[1]: the task. ARGV[1]: the new JSON; ARGV[2]: the
 * time (ms since the epoch) it expires at, or "" to keep it. Answers 1 when written, 0 when the task was settled
 * already or is gone.
 */
export const writeUnlessSettled = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current).task.status
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[2] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1
`

/** The record of a settled task: its status and outcome, its error on the wire when it failed. */
export const settled = (
  record: TaskRecord,
  status: Mcp.TaskStatus,
  at: string,
  outcome: TaskStore.Outcome | undefined,
  statusMessage?: string
): TaskRecord => {
  const { statusMessage: _previous, ...task } = record.task
  const next: TaskRecord = {
    owner: record.owner,
    instance: record.instance,
    task: { ...task, status, lastUpdatedAt: at, ...(statusMessage === undefined ? {} : { statusMessage }) }
  }
  if (outcome === undefined || Exit.isInterrupted(outcome)) return next
  if (Exit.isSuccess(outcome)) return { ...next, result: outcome.value }
  const failure = outcome.cause._tag === "Fail"
    ? outcome.cause.error
    : new McpError.InternalError({ message: "Internal error" })
  const { code, data, message } = McpError.toWire(failure, "2025-11-25")
  return { ...next, error: data === undefined ? { code, message } : { code, message, data } }
}

/** The outcome a settled record holds: its result, its error, or an interruption when it was cancelled. */
export const outcomeOf = (record: TaskRecord): TaskStore.Outcome =>
  record.result !== undefined
    ? Exit.succeed(record.result)
    : record.error !== undefined
    ? Exit.fail(McpError.fromWire(record.error))
    : Exit.interrupt(FiberId.none)

/** When a settled task is forgotten: its ttl after its creation. */
export const expiresAt = (task: Mcp.Task, maxTtl: number): number => Date.parse(task.createdAt) + (task.ttl ?? maxTtl)
