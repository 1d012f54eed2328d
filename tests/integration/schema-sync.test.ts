/**
 * Keeps prisma/schema.prisma and the SQL migrations in step (docs/toolchain.md):
 * after migrating, every model field must exist as a column with the same
 * type and nullability, every column must be a model field, and every enum's
 * values must match the PostgreSQL enum type.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';

interface Field { column: string; type: string; nullable: boolean; list: boolean; db?: string }
interface Model { table: string; fields: Field[] }

function parseSchema(text: string) {
  const models: Model[] = [];
  const enums = new Map<string, { dbName: string; values: string[] }>();
  const blocks = text.matchAll(/^(model|enum)\s+(\w+)\s*\{([\s\S]*?)^\}/gm);
  const enumNames = new Set([...text.matchAll(/^enum\s+(\w+)/gm)].map((m) => m[1]!));
  const modelNames = new Set([...text.matchAll(/^model\s+(\w+)/gm)].map((m) => m[1]!));
  for (const [, kind, name, body] of blocks) {
    const lines = body!.split('\n').map((l) => l.replace(/\/\/.*$/, '').trim()).filter(Boolean);
    const dbName = lines.map((l) => l.match(/^@@map\("([^"]+)"\)/)?.[1]).find(Boolean) ?? name!;
    if (kind === 'enum') {
      enums.set(name!, { dbName, values: lines.filter((l) => !l.startsWith('@@')) });
      continue;
    }
    const fields: Field[] = [];
    for (const line of lines) {
      if (line.startsWith('@@')) continue;
      const m = line.match(/^(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/);
      if (!m) continue;
      const [, fieldName, type, list, optional, rest] = m;
      if (modelNames.has(type!)) continue; // relation field, no column
      fields.push({
        column: rest!.match(/@map\("([^"]+)"\)/)?.[1] ?? fieldName!,
        type: enumNames.has(type!) ? `enum:${type}` : type!,
        nullable: Boolean(optional),
        list: Boolean(list),
        db: rest!.match(/@db\.(\w+)/)?.[1],
      });
    }
    models.push({ table: dbName, fields });
  }
  return { models, enums };
}

function expectedUdt(field: Field, enums: Map<string, { dbName: string }>): string {
  if (field.type.startsWith('enum:')) return enums.get(field.type.slice(5))!.dbName;
  const base: Record<string, string> = {
    String: field.db === 'Uuid' ? 'uuid' : 'text',
    Int: 'int4',
    BigInt: 'int8',
    Float: 'float8',
    Boolean: 'bool',
    DateTime: field.db === 'Date' ? 'date' : 'timestamptz',
    Json: field.db === 'Json' ? 'json' : 'jsonb',
  };
  const udt = base[field.type];
  if (!udt) throw new Error(`unmapped Prisma type ${field.type}`);
  return field.list ? `_${udt}` : udt;
}

describe('Prisma schema and SQL migrations', () => {
  const t = useTestDatabase();

  const { models, enums } = parseSchema(readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8'));

  it('parses a non-trivial schema (guards the parser itself)', () => {
    expect(models.length).toBeGreaterThanOrEqual(14);
    expect(enums.get('TaskStatus')?.values).toContain('dead');
  });

  it('has every model field as a column with the same type and nullability, and no extra columns', async () => {
    const { rows } = await t.pool.query<{ table_name: string; column_name: string; udt_name: string; is_nullable: string }>(
      // a partition of a history table (runs_w20261130, runs_default, ...) has its parent's columns
      `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns c
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
         AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.oid = format('%I', c.table_name)::regclass AND p.relispartition)`,
    );
    const actual = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
    const differences: string[] = [];
    const seen = new Set<string>();
    for (const model of models) {
      for (const field of model.fields) {
        const key = `${model.table}.${field.column}`;
        seen.add(key);
        const col = actual.get(key);
        if (!col) { differences.push(`${key}: missing in database`); continue; }
        const udt = expectedUdt(field, enums);
        if (col.udt_name !== udt) differences.push(`${key}: schema says ${udt}, database has ${col.udt_name}`);
        if ((col.is_nullable === 'YES') !== field.nullable) differences.push(`${key}: nullability differs (database ${col.is_nullable})`);
      }
    }
    for (const key of actual.keys()) if (!seen.has(key)) differences.push(`${key}: column not in schema.prisma`);
    expect(differences).toEqual([]);
  });

  it('has the same enum values in both', async () => {
    const { rows } = await t.pool.query<{ typname: string; labels: string[] }>(
      `SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.typname, r.labels]));
    const expected = Object.fromEntries([...enums.values()].map((e) => [e.dbName, e.values]));
    expect(actual).toEqual(expected);
  });
});
