// How a fresh server warms up: blocks of BLOCK calls (default 500) on one new connection, each block's calls/s and
// client / server CPU µs per call, for ours and SDK 1.32, through the benchmark's own `connect` and `measure`.
// HOW=stdio|http|stateless (default http), CONC in flight (default 1), BLOCKS (default 12). Run `pnpm build` first.
import { connect, measure } from "../scripts/bench/transports.mjs"

const HOW = process.env.HOW ?? "http", CONC = Number(process.env.CONC ?? 1)
const BLOCK = Number(process.env.BLOCK ?? 500), BLOCKS = Number(process.env.BLOCKS ?? 12)
const whos = HOW === "stateless" ? ["ours", "v2"] : ["ours", "v1"]
console.log(`${HOW}, ${CONC} in flight, blocks of ${BLOCK} calls on one fresh connection (calls/s, client µs, server µs per call)`)
for (const round of [1, 2]) {
  for (const who of whos) {
    const peer = await connect(who, HOW)
    const cells = []
    for (let b = 0; b < BLOCKS; b++) {
      const m = await measure(peer, CONC, BLOCK)
      cells.push(`${m.rps.toFixed(0).padStart(5)}/s c${m.clientUs.toFixed(0).padStart(5)} s${m.serverUs.toFixed(0).padStart(5)}`)
    }
    await peer.close()
    console.log(`round ${round} ${who.padEnd(4)} ${cells.join(" | ")}`)
  }
}
process.exit(0)
