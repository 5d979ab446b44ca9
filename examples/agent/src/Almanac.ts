/**
 * The almanac: an `@effect/ai` Toolkit of one tool, `planet_facts`, served as an MCP server by
 * `ToolkitServer` (`almanacServer.ts` runs it over stdio). The same definition could be handed to a
 * language model directly; here it reaches the agent through MCP, as any other server's tools do.
 */
import { ToolkitServer } from "@effect-mcp/ai"
import { McpServer } from "@effect-mcp/core"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** The almanac knows no planet by that name. */
export class UnknownPlanet extends Schema.TaggedError<UnknownPlanet>()("UnknownPlanet", {
  planet: Schema.String,
  message: Schema.String
}) {}

/** What the almanac knows of a planet. */
export const Facts = Schema.Struct({
  planet: Schema.String,
  moons: Schema.Int.annotations({ description: "How many moons it has" }),
  dayLengthHours: Schema.Number.annotations({ description: "The length of its day (sunrise to sunrise), in hours" })
})

/** `planet_facts`: the moons and the day length of a rocky planet. */
export const PlanetFacts = AiTool.make("planet_facts", {
  description: "Facts about a rocky planet of the solar system: how many moons it has and how long its day is",
  parameters: { planet: Schema.String.annotations({ description: "The planet's English name, e.g. Venus" }) },
  success: Facts,
  failure: UnknownPlanet
})
  .annotate(AiTool.Title, "Planet facts")
  .annotate(AiTool.Readonly, true)
  .annotate(AiTool.Destructive, false)
  .annotate(AiTool.OpenWorld, false)

/** The almanac's toolkit. */
export const Almanac = Toolkit.make(PlanetFacts)

/** Moons and solar day length in hours (NASA's planetary fact sheet). */
const known: Readonly<Record<string, readonly [moons: number, day: number]>> = {
  mercury: [0, 4222.6],
  venus: [0, 2802.0],
  earth: [1, 24.0],
  mars: [2, 24.7]
}

/** The almanac's handlers. */
export const AlmanacHandlers = Almanac.toLayer({
  planet_facts: ({ planet }) => {
    const facts = known[planet.trim().toLowerCase()]
    return facts === undefined
      ? Effect.fail(new UnknownPlanet({ planet, message: `the almanac knows no rocky planet named ${planet}` }))
      : Effect.succeed({ planet, moons: facts[0], dayLengthHours: facts[1] })
  }
})

/** The almanac as an MCP server. */
export const server = ToolkitServer.layer(Almanac).pipe(
  Layer.provide(AlmanacHandlers),
  Layer.provideMerge(McpServer.layer({ name: "almanac", version: "1.0.0" }))
)
