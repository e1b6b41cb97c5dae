/** A stylesheet imported by a browser script: its text (esbuild's `text` loader, src/directory/files.ts). */
declare module '*.css' {
  const text: string
  export default text
}
