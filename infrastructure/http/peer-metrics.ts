/**
 * Other processes whose GET /metrics this one serves as its own `GET /metrics?process={name}`: by name, the
 * base URL of each one's operations server (`http://projections:3003`). The distributed mode's query API
 * serves the console, whose health view shows the relay's lag (the projections process) and the delivery
 * counts (the webhook dispatcher) that way.
 */
export type PeerMetrics = Readonly<Record<string, string>>;

/** What one read of another process's metrics came to: its text, or why there is none, in words. */
export type PeerReading = { ok: true; text: string } | { ok: false; detail: string };

export type PeerMetricsOptions = {
  /** How long a read may take, answer and body together. */
  timeoutMs?: number;
  /** A longer answer is not metrics: refused. */
  maxBytes?: number;
  /** A read started less than this long ago, or still under way, is shared instead of starting another. */
  minIntervalMs?: number;
  now?: () => number;
};

/** The body, up to `maxBytes`; null past that (the rest is not read). */
const boundedText = async (response: Response, maxBytes: number): Promise<string | null> => {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * Reads `{baseUrl}/metrics` of another process: a GET with no credentials, no redirect followed, bounded in
 * time and size. It never throws: a failure is a reading that says, in words, what went wrong, and never
 * the address or an error's message (the address is configuration, and may name what the caller need not
 * know). However often it is asked, it starts at most one read at a time and one per `minIntervalMs`: the
 * others share it, so a flood of requests for it costs the other process next to nothing.
 */
export const peerMetricsReader = (
  name: string,
  baseUrl: string,
  {
    timeoutMs = 2_000,
    maxBytes = 1024 * 1024,
    minIntervalMs = 200,
    now = () => performance.now(),
  }: PeerMetricsOptions = {},
): (() => Promise<PeerReading>) => {
  const target = new URL(baseUrl);
  target.pathname = `${target.pathname.replace(/\/$/, '')}/metrics`;
  target.search = '';
  target.hash = '';
  const who = `The ${name} process`;

  const read = async (): Promise<PeerReading> => {
    try {
      const response = await fetch(target, {
        headers: { Accept: 'text/plain' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return { ok: false, detail: `${who} answered its metrics with status ${response.status}.` };
      }
      const text = await boundedText(response, maxBytes);
      if (text === null) return { ok: false, detail: `${who} answered more than ${maxBytes} bytes.` };
      return { ok: true, text };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return {
        ok: false,
        detail: timedOut ? `${who} did not answer within ${timeoutMs} ms.` : `${who} could not be reached.`,
      };
    }
  };

  let last: { at: number; pending: boolean; reading: Promise<PeerReading> } | undefined;
  return () => {
    const at = now();
    if (last && (last.pending || at - last.at < minIntervalMs)) return last.reading;
    const current = { at, pending: true, reading: read() };
    void current.reading.then(() => (current.pending = false));
    last = current;
    return current.reading;
  };
};
