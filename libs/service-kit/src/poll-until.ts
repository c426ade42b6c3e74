/** Re-runs `check` every `intervalMs` until it returns true (→ true) or `timeoutMs` passes (→ false). */
export async function pollUntil(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 15): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return false;
}
