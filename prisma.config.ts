// Prisma 7 reads its configuration here (it no longer loads .env by itself).
// Only `prisma generate` is used: migrations are applied by lib/db/migrate.ts.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/tickflow' },
});
