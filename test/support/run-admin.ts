import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const admin = fileURLToPath(new URL('../../cli/admin.ts', import.meta.url));

/**
 * Runs `npm run admin -- ...args` as its own process, as an operator would; with `closeStdout`, as `| head`
 * would, which reads nothing and closes the pipe at once.
 */
export const runAdmin = (
  args: string[],
  env: Record<string, string>,
  stdin?: string,
  { closeStdout = false }: { closeStdout?: boolean } = {},
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    // MONGODB_URL and EVENT_LOG_URL only when the test gives them: otherwise the CLI works on DATA_DIR,
    // even while the integration servers are exported in the environment.
    const { MONGODB_URL: _mongodb, EVENT_LOG_URL: _postgresLog, ...inherited } = process.env;
    const child = spawn(process.execPath, [admin, ...args], {
      env: { ...inherited, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (closeStdout) child.stdout.destroy();
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin ?? '');
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
