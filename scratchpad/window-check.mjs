// Does the measurement window change a stdio row? For ours and SDK 1.32, 64 in flight: each connection warms up with
// 5,000 calls, then measures 4,000 calls and 20,000 calls, one after the other, in three rounds.
import { connect, measure } from "../scripts/bench/transports.mjs"
for (let round = 0; round < 3; round++) {
  for (const who of ["ours", "v1"]) {
    const peer = await connect(who, "stdio")
    await measure(peer, 64, 5000)
    const short = await measure(peer, 64, 4000)
    const long = await measure(peer, 64, 20000)
    const short2 = await measure(peer, 64, 4000)
    await peer.close()
    console.log(`${who}: 4,000 calls ${short.rps.toFixed(0)}/s, then 20,000 calls ${long.rps.toFixed(0)}/s, then 4,000 calls ${short2.rps.toFixed(0)}/s`)
  }
}
process.exit(0)
