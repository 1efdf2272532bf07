// Preloaded into every test process (scripts/run-tests.mjs): keeps Node 20's test runner from tracking every promise
// of the service the tests start in the same process (docs/testing.md, "How the runner works").
//
// Node 20's runner (lib/internal/test_runner/harness.js) finds the test an asynchronous resource belongs to through a
// process-wide async hook with `init` and `destroy` callbacks: a map entry per resource, removed when the garbage
// collector destroys it. A `destroy` callback makes Node register a weak callback for every promise, and the suites
// run the whole service in the test process: in a profile of a group of suites, that tracking took a tenth of the
// process's CPU, more with the garbage collection it causes.
//
// The same answer is kept the way AsyncLocalStorage keeps a store: each resource carries the test it was created
// under, copied from the resource executing when it is created, and nothing is removed because nothing is kept apart
// from the resource. The runner asks "which test is this?" as `map.get(executionAsyncId())`; the `executionAsyncId`
// it holds answers the owning test's own id, which the runner's `init` callback registered as it does today.
// Nothing is changed unless the runner's source is the one described here (Node 20 to 24 have it): a later runner that
// tracks its tests otherwise runs as it comes.
import asyncHooks from 'node:async_hooks';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const kScope = Symbol('test runner scope');

if (runnerTracksEveryResource()) {
  const { createHook, executionAsyncId, executionAsyncResource } = asyncHooks;
  asyncHooks.executionAsyncId = function testScopeId() {
    const scope = executionAsyncResource()?.[kScope];
    return scope === undefined ? executionAsyncId() : scope.asyncId();
  };
  asyncHooks.createHook = function createRunnerHook(callbacks) {
    const { init, destroy, before, after, promiseResolve } = callbacks;
    // Only the runner's own hook has this shape; anything else gets the real thing.
    if (typeof init !== 'function' || typeof destroy !== 'function' || before || after || promiseResolve) return createHook(callbacks);
    return createHook({
      init(asyncId, type, triggerAsyncId, resource) {
        // A test, suite or hook (their AsyncResource type is 'Test'), or the reporters' scope.
        if (type === 'Test' || type === 'TestReporterScope') {
          resource[kScope] = resource;
          if (type === 'Test') init(asyncId, type, triggerAsyncId, resource);
          return;
        }
        const scope = executionAsyncResource()?.[kScope];
        if (scope !== undefined) resource[kScope] = scope;
      },
    });
  };
  // The runner reads both functions once, when it loads; everything else in the process keeps the real ones.
  require('node:test');
  asyncHooks.executionAsyncId = executionAsyncId;
  asyncHooks.createHook = createHook;
  // For test/platform/test-async-scope.test.ts: the preload took effect on this Node.
  globalThis[Symbol.for('portcullis.test-async-scope')] = true;
}

/** The runner maps resources to tests with an init/destroy hook and looks tests up by `executionAsyncId()`. */
function runnerTracksEveryResource() {
  let sources;
  try {
    // The runner's own source is the only way to know its shape; process.binding is deprecated, hence the try.
    sources = process.binding('natives');
  } catch {
    return false;
  }
  const harness = sources['internal/test_runner/harness'] ?? '';
  const test = sources['internal/test_runner/test'] ?? '';
  return (
    harness.includes("require('async_hooks')") &&
    harness.includes('testResources.get(executionAsyncId())') &&
    harness.includes('testResources.delete(asyncId)') &&
    test.includes("super('Test')")
  );
}
