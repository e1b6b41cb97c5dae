import { Writable } from 'node:stream'

/** A log stream that drops every line: for a second app instance whose logs no test reads. */
export function discardingLogStream(): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done()
    },
  })
}
