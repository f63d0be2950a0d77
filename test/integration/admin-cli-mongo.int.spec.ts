import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { requiredServer } from '../support/integration-env.ts';
import { runAdmin } from '../support/run-admin.ts';

const database = `admin_cli_${randomUUID().replaceAll('-', '')}`;
afterAll(async () => {
  const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
  await client.db(database).dropDatabase();
  await client.close();
});

describe('npm run admin -- user:* with MONGODB_URL (the distributed mode store)', () => {
  it('adds a user to MongoDB and lists it from there', async () => {
    const env = {
      MONGODB_URL: requiredServer('MONGODB_URL'),
      MONGODB_DATABASE: database,
      DATA_DIR: '/nonexistent',
    };
    const added = await runAdmin(
      ['user:add', '--email', 'mongo@shop.example', '--password', 'mongo-password', '--role', 'admin'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await runAdmin(['user:list'], env);
    expect(listed.stdout).toMatch(/mongo@shop\.example {2}mongo@shop\.example {2}\[admin\]/);

    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    const stored = await client.db(database).collection('users').findOne({ email: 'mongo@shop.example' });
    await client.close();
    expect(stored?.['passwordHash']).toMatch(/^scrypt\$N=32768,r=8,p=3\$/);
  });

  it('imports the demo catalogue into MongoDB', async () => {
    const env = { MONGODB_URL: requiredServer('MONGODB_URL'), MONGODB_DATABASE: database };
    const demo = fileURLToPath(new URL('../../catalog/demo-catalog.json', import.meta.url));
    const imported = await runAdmin(['catalog:import', demo], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      `imported 60 products in 6 categories (added or updated) into the MongoDB database ${database}`,
    );
    const client = await MongoClient.connect(requiredServer('MONGODB_URL'));
    expect(await client.db(database).collection('catalog_products').countDocuments()).toBe(60);
    await client.close();
  });
});
