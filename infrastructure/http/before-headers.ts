import type { ServerResponse } from 'node:http';

/** Runs `hook` just before the status line and headers go out, whoever sends them. */
export const beforeHeaders = (response: ServerResponse, hook: () => void): void => {
  const writeHead = response.writeHead;
  let ran = false;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!ran) {
      ran = true;
      // writeHead(status, ...) sets the status only now: expose it to the hook first.
      if (typeof args[0] === 'number') this.statusCode = args[0];
      hook();
    }
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
};
