import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const createLogger = new URL('../../infrastructure/logging/create-logger.ts', import.meta.url).href;

/** A process that logs `lines` lines with the service's logger to its standard output, then ends by `ending`. */
const logThenEnd = (lines: number, ending: string) => {
  const script = `
    import { createLogger } from ${JSON.stringify(createLogger)};
    const logger = createLogger({ level: 'info' });
    for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
    ${ending}
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  const logged = child.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { i: number }).i);
  return { status: child.status, logged };
};

const upTo = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('log lines are written in batches, and none is lost when the process ends', () => {
  it('writes every line, in order, when the process ends by itself', () => {
    expect(logThenEnd(5_000, '')).toEqual({ status: 0, logged: upTo(5_000) });
  });

  it('writes the lines still waiting when the process calls process.exit', () => {
    expect(logThenEnd(3, 'process.exit(3);')).toEqual({ status: 3, logged: upTo(3) });
  });

  it('writes the lines still waiting when an uncaught error ends the process', () => {
    expect(logThenEnd(3, "throw new Error('boom');")).toEqual({ status: 1, logged: upTo(3) });
  });

  it('writes a line within the flush interval while the process keeps running', () => {
    // The process stays up 2 s after its one line and is then killed: the line must be out by then.
    const { logged } = logThenEnd(1, 'setTimeout(() => process.kill(process.pid, "SIGKILL"), 2000);');
    expect(logged).toEqual([0]);
  });
});
