// A V8 CPU profile (node --cpu-prof) summarised for a person: self time by part of the program and the
// heaviest functions, over a window of the profile's own clock (the system's monotonic clock, in µs).
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './report.ts';

export type CpuProfile = {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
};

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The part of the program a frame belongs to: a package, a folder of the project, or a part of Node. */
export const partOf = (url: string, functionName: string): string => {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'garbage collection';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 and native code outside JS (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length);
    if (/^internal\/(http|_http)|^_http|^http/.test(module)) return 'node: http';
    if (/streams|^stream|^internal\/stream/.test(module)) return 'node: streams';
    if (/crypto/.test(module)) return 'node: crypto';
    if (/sqlite/.test(module)) return 'node: sqlite';
    if (/^net|internal\/net|stream_base/.test(module)) return 'node: net';
    if (/timers/.test(module)) return 'node: timers';
    if (/events/.test(module)) return 'node: events';
    return 'node: other';
  }
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (packageMatch) return packageMatch[1]!;
  const inProject = relative(root, path);
  if (!inProject.startsWith('..')) return `${inProject.split('/').slice(0, -1).join('/') || '.'}/`;
  return path;
};

export const summariseProfile = (
  profile: CpuProfile,
  {
    window,
    top = 25,
    requests,
  }: { window?: { fromMicros: number; toMicros: number }; top?: number; requests?: number },
): string => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  let time = profile.startTime;
  let total = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    time += profile.timeDeltas[index]!;
    if (window && (time < window.fromMicros || time > window.toMicros)) continue;
    // A sample's time is the gap to the next one.
    const spent = profile.timeDeltas[index + 1] ?? 0;
    const id = profile.samples[index]!;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + spent);
    total += spent;
  }
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const part = partOf(url, functionName);
    byPart.set(part, (byPart.get(part) ?? 0) + micros);
    const where =
      url === ''
        ? ''
        : ` ${url.startsWith('file://') ? relative(root, fileURLToPath(url)) : url}:${lineNumber + 1}`;
    const name = `${functionName || '(anonymous)'}${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const busy = total - (byPart.get('idle') ?? 0);
  const perRequest = (micros: number) => (requests ? (micros / requests).toFixed(1) : '');
  const rows = (map: Map<string, number>, limit: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, micros]) => [
        name,
        `${((micros / total) * 100).toFixed(1)} %`,
        name === 'idle' ? '' : `${((micros / busy) * 100).toFixed(1)} %`,
        perRequest(micros),
      ]);
  return [
    `${(total / 1e6).toFixed(1)} s of profile in the window, ${(busy / 1e6).toFixed(1)} s busy` +
      (requests ? `, ${requests} requests: ${(busy / requests).toFixed(1)} µs busy per request` : ''),
    '',
    'Self time by part:',
    '',
    markdownTable(['part', 'of all', 'of busy', 'µs per request'], rows(byPart, 40)),
    '',
    `The ${top} heaviest functions (self time):`,
    '',
    markdownTable(['function', 'of all', 'of busy', 'µs per request'], rows(byFunction, top)),
  ].join('\n');
};
