// Loaded with `--import` into every benchmark process: prints each kind of warning once. SDK 1.32's HTTP client adds
// an abort listener to one signal per request (docs/benchmarks.md, "Where the time goes", HTTP), and Node would
// print a MaxListeners warning for every request past 1,500.
const warned = new Set()
process.removeAllListeners("warning")
process.on("warning", (warning) => {
  const kind = `${warning.name}: ${warning.message.replace(/\d+/g, "N")}`
  if (warned.has(kind)) return
  warned.add(kind)
  process.stderr.write(`bench: ${warning.name}: ${warning.message} (printed once)\n`)
})
