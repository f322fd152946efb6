/**
 * The one module that touches `process.env` (docs/configuration.md). Everything else reads its
 * settings through the declarations beside this file; the local runtime writes the variables of the
 * handlers it starts here, as Lambda would hand them over.
 */

/** Variables by name, as `process.env` holds them (or a test's stand-in). */
export type Env = Readonly<Record<string, string | undefined>>;

/** The process's environment, read as it is now (a local hub started again may have changed it). */
export const processEnv = (): Env => process.env;

/**
 * Sets `values`, and `defaults` where the variable is unset; returns a function that puts back what
 * was there before (the local hub's stop()).
 */
export const setEnvironment = (
  values: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>> = {},
): (() => void) => {
  const unset = Object.fromEntries(Object.entries(defaults).filter(([k]) => process.env[k] === undefined));
  const next = { ...unset, ...values };
  const previous = Object.fromEntries(Object.keys(next).map((k) => [k, process.env[k]]));
  Object.assign(process.env, next);
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
};

/**
 * Runs `fn` with `values` set, then puts the previous values back: for a library that reads a variable
 * itself and has no option for it (Powertools' Metrics and POWERTOOLS_METRICS_DISABLED).
 */
export const withEnvironment = <T>(values: Readonly<Record<string, string>>, fn: () => T): T => {
  const restore = setEnvironment(values);
  try {
    return fn();
  } finally {
    restore();
  }
};
