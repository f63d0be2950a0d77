import { pino, type DestinationStream } from 'pino';

/**
 * Standard output for log lines, written in batches: lines are kept until about `maxBatchBytes` are waiting
 * or `maxDelayMs` has passed, then written in one synchronous write. One write per line (pino's default) was
 * the largest single cost of a request in issue 9's profiles, and sonic-boom's own buffering measures the
 * whole buffer again for every line it adds.
 *
 * What is waiting is written when the process exits, however it exits (a return from main, process.exit, an
 * uncaught error): only a SIGKILL loses lines, those of the last `maxDelayMs`. A write blocks while the
 * reader of standard output is not reading, as pino's synchronous mode does: the log is never dropped.
 */
export const createBatchedStdout = ({
  maxBatchBytes = 16 * 1024,
  maxDelayMs = 100,
}: { maxBatchBytes?: number; maxDelayMs?: number } = {}): DestinationStream => {
  const out = pino.destination({ dest: 1, sync: true });
  let waiting: string[] = [];
  let waitingLength = 0;
  const writeWaiting = () => {
    if (waiting.length === 0) return;
    const batch = waiting.join('');
    waiting = [];
    waitingLength = 0;
    out.write(batch);
  };
  setInterval(writeWaiting, maxDelayMs).unref();
  process.once('exit', writeWaiting);
  return {
    write(line: string) {
      waiting.push(line);
      waitingLength += line.length;
      if (waitingLength >= maxBatchBytes) writeWaiting();
    },
  };
};
