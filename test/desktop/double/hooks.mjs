/**
 * Module resolver hooks (Node's module.register), loaded by register.mjs in the shell's test
 * process only: `electron` resolves to the double (main-double.mjs); a subpath of it is refused,
 * since the shell has no business there. Each importer of `electron` is reported to the main
 * thread (hooks run on their own thread), so a test can tell which modules asked for it.
 */
let doubleUrl = '';
/** @type {MessagePort | null} */
let port = null;

export function initialize(data) {
  doubleUrl = data.doubleUrl;
  port = data.port;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') {
    port?.postMessage({ importer: context.parentURL ?? null });
    return { url: doubleUrl, shortCircuit: true };
  }
  if (specifier.startsWith('electron/')) {
    throw new Error(
      `electron double: ${specifier} is not implemented (imported by ${context.parentURL})`,
    );
  }
  return nextResolve(specifier, context);
}
