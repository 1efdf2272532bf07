/** Waits until `check` holds, polling every `intervalMs`; past `timeoutMs` the scenario fails naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
