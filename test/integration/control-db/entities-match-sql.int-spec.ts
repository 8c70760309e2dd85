import { DataSource } from 'typeorm';
import { CONTROL_ENTITIES } from '@baseplate/control-db';

/**
 * The SQL migrations own the control schema (synchronize is off); the TypeORM entities
 * must describe exactly what they create: same tables, columns, types, nullability and
 * primary keys. A migration or an entity changed alone fails here.
 */
describe('control-plane entities agree with the SQL migrations', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = new DataSource({
      type: 'postgres',
      url: process.env.BASEPLATE_TEST_DATABASE_URL,
      entities: CONTROL_ENTITIES,
      synchronize: false,
    });
    await ds.initialize();
  });
  afterAll(() => ds?.destroy());

  interface DbColumn {
    table_name: string;
    column_name: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
  }

  // TypeORM's type names → information_schema udt names.
  const UDT: Record<string, string> = {
    uuid: 'uuid',
    text: 'text',
    integer: 'int4',
    bigint: 'int8',
    boolean: 'bool',
    timestamptz: 'timestamptz',
    jsonb: 'jsonb',
  };

  const entityColumns = () =>
    ds.entityMetadatas.flatMap((m) =>
      m.columns.map((c) => ({
        table_name: m.tableName,
        column_name: c.databaseName,
        udt_name: UDT[String(c.type)] ?? `unmapped:${String(c.type)}`,
        is_nullable: c.isNullable ? 'YES' : 'NO',
      })),
    );

  it('maps every column of every entity table, and no more', async () => {
    const tables = ds.entityMetadatas.map((m) => m.tableName);
    const rows: DbColumn[] = await ds.query(
      `SELECT table_name, column_name, udt_name, is_nullable
         FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = ANY($1)`,
      [tables],
    );
    const key = (c: DbColumn) => `${c.table_name}.${c.column_name}`;
    const sort = (cs: DbColumn[]) => [...cs].sort((x, y) => key(x).localeCompare(key(y)));
    expect(sort(entityColumns() as DbColumn[])).toEqual(sort(rows));
  });

  it('has the same primary keys', async () => {
    const rows: { table_name: string; column_name: string }[] = await ds.query(
      `SELECT tc.table_name, kcu.column_name
         FROM information_schema.table_constraints tc
         JOIN information_schema.key_column_usage kcu
           ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
        WHERE tc.table_schema = 'public' AND tc.constraint_type = 'PRIMARY KEY' AND tc.table_name = ANY($1)`,
      [ds.entityMetadatas.map((m) => m.tableName)],
    );
    const fromEntities = ds.entityMetadatas.flatMap((m) =>
      m.primaryColumns.map((c) => `${m.tableName}.${c.databaseName}`),
    );
    expect(rows.map((r) => `${r.table_name}.${r.column_name}`).sort()).toEqual(fromEntities.sort());
  });

  it('covers every table the migrations create besides the migration log', async () => {
    const rows: { tablename: string }[] = await ds.query(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
    );
    expect(rows.map((r) => r.tablename).sort()).toEqual(
      ds.entityMetadatas.map((m) => m.tableName).sort(),
    );
  });
});
