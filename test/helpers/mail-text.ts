/** A received message's text with quoted-printable undone (soft line breaks and `=XX` bytes), as UTF-8. */
export function mailText(raw: string): string {
  const joined = raw.replace(/=\r?\n/g, '')
  const bytes = joined.replace(/=([0-9A-F]{2})/g, (_match, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  )
  return Buffer.from(bytes, 'latin1').toString('utf8')
}
