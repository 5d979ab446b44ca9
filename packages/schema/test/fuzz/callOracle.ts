/**
 * What a client call must do when a hostile server answers it (issue 28, the other direction): settle promptly
 * (well before the 60 s request timeout the clients are given), as a success when a valid answer followed the stray
 * line, else as a success or a typed failure (a wire error, a protocol violation, a transport error), never a defect
 * or a hang; and what the failure says stays bounded, whatever the server sent.
 */
import { McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import type { HostileAnswer } from "./answers.js"

/** The request timeout the clients under test are given. */
export const requestTimeout = "60 seconds"

/** How long a hostile answer may take to settle a call (a bound on the test, far below the request timeout). */
export const settleWithin = "20 seconds"

/** How long a failure's message may be: a peer's error message is kept to 16 KiB (and a mark that it was cut). */
export const maxFailureText = 16_384 + 16

/** The failures of a client call that are typed, besides the wire errors (the host's own included). */
const typed = new Set([
  "ProtocolViolation",
  "TransportError",
  "ConnectionClosed",
  "CapabilityMissing",
  "Unauthorized",
  "Forbidden",
  "SessionExpired",
  "ServerUnavailable"
])

const textOf = (e: object): string => {
  const { message, reason } = e as { readonly message?: unknown; readonly reason?: unknown }
  return typeof reason === "string" ? reason : typeof message === "string" ? message : ""
}

/** What is wrong with how a call ended under a hostile answer (undefined when it is right). */
export const judgeCall = (answer: HostileAnswer, exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) {
    return `not a typed failure: ${Cause.pretty(exit.cause).slice(0, 400)}`
  }
  const e = failure.value
  if (Cause.isTimeoutException(e)) return `did not settle within ${settleWithin}`
  const tag = typeof e === "object" && e !== null && "_tag" in e ? String(e._tag) : typeof e
  if (answer.expect === "succeed") {
    return `failed (${tag}: ${textOf(e as object).slice(0, 300)}) though a valid answer followed the stray line`
  }
  if (!McpError.isMcpError(e) && !typed.has(tag)) return `failed with an untyped ${tag}`
  const text = textOf(e as object)
  if (text.length > maxFailureText) return `${tag} with a message of ${text.length} chars`
  return undefined
}

/** An answer in a failure report. */
export const describeAnswer = (answer: HostileAnswer, n: number): string =>
  `case ${n} ${answer.method}: ${answer.what} | ${answer.lines.map((l) => l.slice(0, 160)).join(" / ")}`

/** How long a log line may be: it quotes peer data in part at most. */
export const maxLogLine = 16_384

/**
 * A logger that prints nothing and keeps the lines longer than `maxLogLine` (their start and length), for a check
 * that what a hostile peer sends is never logged whole.
 */
export const logCapture = () => {
  const long: Array<string> = []
  const logger = Logger.make(({ message }) => {
    const text = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : String(m)))
      .join(" ")
    if (text.length > maxLogLine) long.push(`${text.length} chars: ${text.slice(0, 160)}`)
  })
  return { long, layer: Logger.replace(Logger.defaultLogger, logger) }
}
