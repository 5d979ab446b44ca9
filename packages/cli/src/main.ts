/** The effect-mcp program: runs the command, and exits with the status its outcome maps to (`bin.ts` loads it). */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Cli from "./Cli.js"
import { ExitCode } from "./ExitCode.js"

const statusOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return ExitCode.Ok
  if (Cause.isInterruptedOnly(exit.cause)) return ExitCode.Interrupted
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return ExitCode.Protocol
  const e = failure.value as { readonly _tag?: string; readonly exitCode?: number }
  // @effect/cli's own validation errors (unknown command, bad option) are usage errors
  return e.exitCode ?? ExitCode.Usage
}

Cli.run(process.argv).pipe(
  Effect.tapError((e) => {
    const error = e as { readonly _tag?: string; readonly message?: string }
    return error._tag !== undefined && "exitCode" in error && error._tag !== "ToolFailed"
      ? Console.error(`effect-mcp: ${error.message}`)
      : Effect.void
  }),
  Effect.provide(NodeContext.layer),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(statusOf(exit))
  })
)
