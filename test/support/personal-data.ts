import { spawn } from 'node:child_process';

/** What a personal field reads as once its customer is erased. */
export const erased = '[erased]';
export const erasedAddress = { street: erased, city: erased, postalCode: erased, country: erased };

/**
 * The files under `dirs` whose bytes contain `needle`, as grep prints them. Searched by another process,
 * waited for without blocking this one: a file this process opened and closed would drop the POSIX locks
 * its own SQLite connections hold on it, and the method router of the distributed mode runs here.
 */
export const filesHolding = (dirs: string[], needle: string): Promise<string[]> =>
  new Promise((resolve, reject) => {
    const grep = spawn('grep', ['-r', '-l', '-a', '-F', '--', needle, ...dirs]);
    let stdout = '';
    let stderr = '';
    grep.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    grep.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    grep.once('error', reject);
    grep.once('close', (status) => {
      const found = stdout.split('\n').filter(Boolean);
      // Other tests' topics come and go while grep walks the directories: a file gone is not a failure.
      const problems = stderr
        .split('\n')
        .filter((line) => line && !line.endsWith('No such file or directory'));
      if (status === 0 || status === 1 || (status === 2 && problems.length === 0)) resolve(found);
      else reject(new Error(`grep failed: ${stderr}`));
    });
  });
