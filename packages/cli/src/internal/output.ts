/** How a command prints: for people by default, JSON with `--json` (the same switch on every command). */
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"

/** `--json`: print JSON instead of text for people. */
export const json = Options.boolean("json").pipe(Options.withDescription("print JSON instead of text for people"))

/** Prints a value as indented JSON on stdout. */
export const print = (value: unknown) => Console.log(JSON.stringify(value, null, 2))
