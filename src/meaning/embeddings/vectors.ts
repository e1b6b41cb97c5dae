/** Vectors as stored (Float32, little-endian bytes) and the cosine the ranking takes of them. */

export function vectorBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4)
  const view = new DataView(bytes.buffer)
  for (const [index, value] of vector.entries()) view.setFloat32(index * 4, value, true)
  return bytes
}

export function vectorOfBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const vector = new Float32Array(Math.floor(bytes.byteLength / 4))
  for (let index = 0; index < vector.length; index++) vector[index] = view.getFloat32(index * 4, true)
  return vector
}

/** The vector scaled to length 1 (a zero vector stays zero). */
export function unitVector(vector: Float32Array): Float32Array {
  let sum = 0
  for (const value of vector) sum += value * value
  const length = Math.sqrt(sum)
  return length === 0 ? new Float32Array(vector.length) : vector.map((value) => value / length)
}
