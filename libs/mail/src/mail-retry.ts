/** The first retry after a failed send; each further one waits twice as long, up to MAX_RETRY_DELAY_MS. */
export const FIRST_RETRY_DELAY_MS = 1_000;
/** Retries never stop (an email is never dropped); while the SMTP server stays down they come every 5 minutes. */
export const MAX_RETRY_DELAY_MS = 5 * 60_000;

/**
 * How long to wait before the next try after `attempts` failed ones, with up to a fifth added at
 * random so that senders that failed together do not retry together.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  return Math.round(base * (1 + random() / 5));
}
