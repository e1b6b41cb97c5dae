import { GlobalRegistrator } from '@happy-dom/global-registrator'

/** A browser-like global DOM (happy-dom) for component tests run by node:test; import it first. */
if (!GlobalRegistrator.isRegistered) GlobalRegistrator.register({ url: 'http://127.0.0.1/admin/' })
