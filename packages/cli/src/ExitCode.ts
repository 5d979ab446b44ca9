/** ExitCode: what the effect-mcp command's exit status means. */

/** Every exit status the command uses. */
export const ExitCode = {
  /** It worked. */
  Ok: 0,
  /** The tool ran and answered an error result (`isError: true`). */
  ToolError: 1,
  /** The command line is wrong (unknown command, missing or bad argument). */
  Usage: 2,
  /** The server could not be reached or started, or its connection broke. */
  Unreachable: 3,
  /** The server answered with a protocol error (a JSON-RPC error, an invalid message). */
  Protocol: 4,
  /** Interrupted (Ctrl-C): the call in flight was cancelled; the process then ends by SIGINT, as shells expect. */
  Interrupted: 130
} as const

/** An exit status of the command. */
export type ExitCode = typeof ExitCode[keyof typeof ExitCode]
