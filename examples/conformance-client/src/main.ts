/** The conformance suite's client under test (placeholder until the client helper lands it). */
export {}
