import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The lint rule that keeps domain/ pure, exercised on code it must refuse and code it must accept.
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
const lint = async (code: string, filePath: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter(
    (m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals',
  );
};

describe('domain/ stays free of I/O (lint)', () => {
  it.each([
    "import { readFileSync } from 'node:fs';",
    "import express from 'express';",
    "import { MongoClient } from 'mongodb';",
    "import { Kafka } from 'kafkajs';",
    "import { EventStoreDBClient } from '@eventstore/db-client';",
    "import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';",
  ])('refuses %s', async (importLine) => {
    expect(await lint(`${importLine}\nexport const x = 1;\n`, 'domain/orders/example.ts')).toHaveLength(1);
  });

  it('refuses reading the clock inside the domain', async () => {
    expect(await lint('export const now = () => Date.now();\n', 'domain/orders/example.ts')).toHaveLength(1);
  });

  it('accepts pure imports in the domain, and I/O outside it', async () => {
    expect(
      await lint(
        "import type { Money } from '../money.ts';\nexport type X = Money;\n",
        'domain/orders/example.ts',
      ),
    ).toEqual([]);
    expect(
      await lint(
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
        'infrastructure/example.ts',
      ),
    ).toEqual([]);
  });
});
