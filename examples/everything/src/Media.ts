/**
 * The small media the everything server returns: a 1×1 red PNG and a short silent WAV, as base64.
 */
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"

/** A 1×1 red pixel, PNG, base64. */
export const redPixelPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

/** The bytes of `redPixelPng`. */
export const redPixelPngBytes: Uint8Array = Either.getOrElse(Encoding.decodeBase64(redPixelPng), () => new Uint8Array())

/** A mono 16-bit PCM WAV of `samples` silent samples at `rate` Hz. */
export const silentWav = (samples: number, rate: number): Uint8Array => {
  const dataBytes = samples * 2
  const bytes = new Uint8Array(44 + dataBytes)
  const view = new DataView(bytes.buffer)
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i))
  }
  ascii(0, "RIFF")
  view.setUint32(4, 36 + dataBytes, true)
  ascii(8, "WAVE")
  ascii(12, "fmt ")
  view.setUint32(16, 16, true) // fmt chunk size
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, rate, true)
  view.setUint32(28, rate * 2, true) // byte rate
  view.setUint16(32, 2, true) // block align
  view.setUint16(34, 16, true) // bits per sample
  ascii(36, "data")
  view.setUint32(40, dataBytes, true)
  return bytes
}

/** A tenth of a second of silence at 8 kHz, WAV, base64. */
export const silenceWav: string = Encoding.encodeBase64(silentWav(800, 8000))
