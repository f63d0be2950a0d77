/**
 * The real servers of `npm run test:integration`. scripts/services.sh starts FerretDB and Kafka and
 * exports their addresses; the suite refuses to run without them rather than skipping silently.
 */
export const requiredServer = (variable: 'MONGODB_URL' | 'KAFKA_BROKERS'): string => {
  const value = process.env[variable];
  if (!value) {
    throw new Error(
      `${variable} is not set: start the servers with \`scripts/services.sh start\` and ` +
        '`eval "$(scripts/services.sh env)"` before `npm run test:integration`.',
    );
  }
  return value;
};
