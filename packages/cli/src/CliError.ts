/** CliError: why a command failed, each carrying the exit status it maps to. */
import * as Data from "effect/Data"
import { ExitCode } from "./ExitCode.js"

/** The command line is wrong. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {
  /** The exit status. */
  readonly exitCode = ExitCode.Usage
}

/** The server could not be reached, started or kept connected. */
export class Unreachable extends Data.TaggedError("Unreachable")<{ readonly message: string }> {
  /** The exit status. */
  readonly exitCode = ExitCode.Unreachable
}

/** The server answered with a protocol error. */
export class ProtocolFailure extends Data.TaggedError("ProtocolFailure")<{ readonly message: string }> {
  /** The exit status. */
  readonly exitCode = ExitCode.Protocol
}

/** The tool answered an error result (already printed). */
export class ToolFailed extends Data.TaggedError("ToolFailed")<{ readonly message: string }> {
  /** The exit status. */
  readonly exitCode = ExitCode.ToolError
}

/** Any failure of a command. */
export type CliError = UsageError | Unreachable | ProtocolFailure | ToolFailed
