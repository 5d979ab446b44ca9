/** @effect-mcp/cli: the effect-mcp command. */
export * as Cli from "./Cli.js"
export * as CliError from "./CliError.js"
export * as ExitCode from "./ExitCode.js"
export * as Target from "./Target.js"
