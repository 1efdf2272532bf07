import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded when first used rather than at start-up, for the packages of rare paths (the SAML
 * stack): every process paid their heap (source text, compiled functions) whether or not it ever served SAML
 * (BENCHMARKS.md, "Performance goals, memory"). `require` keeps the callers synchronous; the type comes from a type-only
 * import, so the compiler still checks every use. `prepare` runs once, when the package is loaded (a library's
 * one-time set-up). The second call costs a variable read.
 */
export function onFirstUse<T>(name: string, prepare?: (loaded: T) => void): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      loaded = require(name) as T;
      prepare?.(loaded);
    }
    return loaded;
  };
}
