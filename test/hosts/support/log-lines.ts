import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const linesPerLog = 20;
const lineLength = 600;

/**
 * The lines of the processes' logs (`<process>.log` in `logsDir`) that name one of `needles`, the last
 * few of each log, each prefixed by its file: what a failed case prints, since the stand's logs go with it.
 */
export const logLinesNaming = (
  logsDir: string,
  needles: readonly string[],
  files: (name: string) => boolean = (name) => name.endsWith('.log'),
): string[] => {
  if (needles.length === 0) return [];
  const lines: string[] = [];
  for (const file of readdirSync(logsDir).filter(files).sort()) {
    const found = readFileSync(join(logsDir, file), 'utf8')
      .split('\n')
      .filter((line) => needles.some((needle) => line.includes(needle)));
    for (const line of found.slice(-linesPerLog)) lines.push(`${file}: ${line.slice(0, lineLength)}`);
  }
  return lines;
};
