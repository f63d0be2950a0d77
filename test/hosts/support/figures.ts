import type { CaseFigures } from './fault-case.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const statuses = (byStatus: Record<string, number>) =>
  Object.entries(byStatus)
    .filter(([status]) => !status.startsWith('2'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ') || 'none';

/**
 * The figures of a run, in the shape of a Jepsen report: per case the load held and what went wrong with
 * it, then the settings the processes and the load ran with.
 */
export const figuresTable = (
  cases: readonly CaseFigures[],
  {
    settings,
    load,
    when,
    commit,
  }: {
    settings: Record<string, string>;
    load: Record<string, number>;
    when: string;
    commit: string;
  },
): string => {
  const header =
    '| case | fault (held) | load held | answers not 2xx | acknowledged writes | lost | duplicated | out of order | webhooks owed / delivered / late | webhooks out of order | read models = fold of log | time to heal (goal) | webhook backlog delivered |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  const rows = cases.map((figures) => {
    const { answers, webhooks } = figures;
    return [
      figures.name,
      `${figures.fault} (${seconds(figures.holdMs)})`,
      `${answers.perSecond.toFixed(1)} req/s, ${answers.requests} requests`,
      statuses(answers.byStatus),
      figures.acknowledged,
      figures.lost,
      figures.duplicated,
      figures.outOfOrder,
      `${webhooks.owed} / ${webhooks.delivered} / ${webhooks.late}`,
      webhooks.outOfOrder,
      figures.readModelsEqualLog ? 'yes' : 'NO',
      `${figures.healMs === null ? 'never' : seconds(figures.healMs)} (< ${seconds(figures.healGoalMs)})`,
      figures.backlogMs === null ? 'none held' : seconds(figures.backlogMs),
    ].join(' | ');
  });
  const named = (record: Record<string, string | number>) =>
    Object.entries(record)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ');
  return [
    `Run of ${when}, commit ${commit}.`,
    '',
    header,
    ...rows.map((row) => `| ${row} |`),
    '',
    `Processes' settings: ${named(settings) || 'unknown'}.`,
    `Load and client: ${named(load)}.`,
    '"answers not 2xx": every answer the load got that was not a 2xx, by status (503s all carried Retry-After unless the case failed); "hung": no answer within the client timeout. "late": first received more than lateAfterMs after its write was acknowledged. "time to heal": from the end of the fault (for the failover: the death of the primary) until a new write was readable and its webhook reached both subscribers. "webhook backlog delivered": from the end of the fault until the last webhook owed for a write acknowledged before it was received. Duplicated webhooks (same id, same bytes, at least once) are not counted as errors.',
  ].join('\n');
};
