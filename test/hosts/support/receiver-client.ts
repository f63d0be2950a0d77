import type { Receipt } from './webhook-check.ts';

/**
 * What the receiver host got, read through its `GET /received?from=N`: each call fetches only what came
 * since the last, and keeps it all.
 */
export const receiverClient = (receiverUrl: string) => {
  const receipts: Receipt[] = [];
  return {
    receipts,
    async all(): Promise<readonly Receipt[]> {
      const response = await fetch(`${receiverUrl}/received?from=${receipts.length}`, {
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status !== 200) throw new Error(`receiver: ${response.status} ${await response.text()}`);
      receipts.push(...((await response.json()) as Receipt[]));
      return receipts;
    },
  };
};

export type ReceiverClient = ReturnType<typeof receiverClient>;
