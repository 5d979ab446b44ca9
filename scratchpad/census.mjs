// A supervisor that counts the Effect instructions (and fiber starts) of the fibers it supervises while `counting`,
// by op kind and by the source of the function each op carries; shared by op-census.mjs and http-op-census.mjs.
import * as Effect from "effect/Effect"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Supervisor from "effect/Supervisor"

const sourceOf = (e) => {
  const f = [e.effect_instruction_i0, e.effect_instruction_i1, e.effect_instruction_i2].find((x) => typeof x === "function")
  return f === undefined ? "" : f.toString().replace(/\s+/g, " ").slice(0, 100)
}

/** Makes a census: `supervised(effect)` runs an effect under it, `report(n)` prints the counts per call of n calls. */
export const makeCensus = () => {
  const byOp = new Map(), bySource = new Map()
  let starts = 0
  const state = { counting: false }
  class Census extends Supervisor.AbstractSupervisor {
    value = Effect.void
    onStart() { if (state.counting) starts++ }
    onEffect(_fiber, e) {
      if (!state.counting) return
      byOp.set(e._op, (byOp.get(e._op) ?? 0) + 1)
      const k = `${e._op} ${sourceOf(e)}`
      bySource.set(k, (bySource.get(k) ?? 0) + 1)
    }
  }
  const census = new Census()
  const supervised = (effect) =>
    effect.pipe(Effect.supervised(census), Effect.withRuntimeFlagsPatch(RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)))
  const report = (n) => {
    const total = [...byOp.values()].reduce((a, b) => a + b, 0)
    console.log(`${(total / n).toFixed(1)} ops per call, ${(starts / n).toFixed(2)} supervised fibers started per call`)
    for (const [k, v] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`${(v / n).toFixed(1).padStart(6)} ${k}`)
    console.log("--- by source")
    for (const [k, v] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 60))) console.log(`${(v / n).toFixed(1).padStart(6)} ${k}`)
  }
  return { state, supervised, report }
}
