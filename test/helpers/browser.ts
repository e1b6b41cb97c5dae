import { access, constants } from 'node:fs/promises'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it when missing. */
export const CHROMIUM_PATH = process.env.EXPERTDIR_TEST_CHROMIUM ?? '/usr/bin/chromium'

/** `required`: a missing Chromium fails the browser tests (CI); otherwise they are skipped with a note. */
const BROWSER_REQUIRED = process.env.EXPERTDIR_TEST_BROWSER === 'required'

/** Why the browser tests cannot run here (a `skip` reason), or false when they can. */
export async function browserSkip(): Promise<string | false> {
  try {
    await access(CHROMIUM_PATH, constants.X_OK)
    return false
  } catch {
    const reason = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`
    if (BROWSER_REQUIRED) throw new Error(`the browser tests are required, but there is ${reason}`)
    return reason
  }
}

/**
 * Headless Chromium with nothing that talks to the outside world. `hosts` maps host names to
 * 127.0.0.1, so a page can be served under a real-looking name (`docs.example.test`) by a local server.
 */
export async function launchBrowser(hosts: string[] = []): Promise<Browser> {
  const rules = hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ],
  })
}

const shared = new Map<string, Promise<Browser>>()

/**
 * `launchBrowser(hosts)`, launched once per test file and shared by its suites (one per dialect): a
 * new context per page keeps them apart, and a context costs far less than a Chromium. A file that
 * uses it closes the browsers with `after(closeSharedBrowsers)` at its top level.
 */
export function sharedBrowser(hosts: string[] = []): Promise<Browser> {
  const key = hosts.join(' ')
  let browser = shared.get(key)
  if (!browser) {
    browser = launchBrowser(hosts)
    shared.set(key, browser)
  }
  return browser
}

export async function closeSharedBrowsers(): Promise<void> {
  const launched = [...shared.values()]
  shared.clear()
  for (const browser of launched)
    await browser.then(
      (opened) => opened.close(),
      () => {},
    )
}
