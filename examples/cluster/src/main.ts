/**
 * Runs the scale-out scenario for a person to watch: redis-server, three everything processes started with
 * `--http --redis`, a round-robin proxy in front, and a line per event on stdout. Build first (`pnpm build`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Scenario from "./Scenario.js"

Effect.scoped(Scenario.run((line) => Console.log(line))).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
