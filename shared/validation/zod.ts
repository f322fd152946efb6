/**
 * The one way this code base imports zod: `import * as z from '…/shared/validation/zod.ts'`.
 *
 * It is `zod/mini` (the functional API: `z.optional(x)`, `.check(z.minLength(1))`), re-exported
 * export by export so bundlers keep only what is used. A `z` namespace object (`import { z }`),
 * `z.locales` or a value under `z.core` (types are fine) drags every locale and all of zod's core
 * into each Lambda bundle (~400 KB of zod instead of ~25–30 KB).
 *
 * zod/mini configures no locale, while issue messages reach callers as error text (and the
 * protocol codecs read them), so the English one, imported alone, is set here unless a locale
 * was configured already: every module that validates imports this one, so every bundle has it.
 * Unlike the full build, zod/mini installs no memoizer either (`z.config({ memoizer: z.memoizer() })`
 * would add cycle support, needed only by recursive `z.lazy` schemas parsing cyclic input).
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// `z.config()` returns the global config; reading `z.core.globalConfig` would pull all of core in.
if (!z.config().localeError) z.config(en());

export * from 'zod/mini';
