import type { Column, FunctionDef, Relationship, SchemaCache, Table } from '../schema/types';
import { buildOpenApi } from './openapi';

function column(name: string, type: string, baseType: string, extra: Partial<Column> = {}): Column {
  return {
    name,
    type,
    baseType,
    category: baseType.startsWith('_') ? 'A' : 'N',
    nullable: true,
    default: null,
    generated: false,
    description: null,
    ...extra,
  };
}

function table(schema: string, name: string, columns: Column[], extra: Partial<Table> = {}): Table {
  return {
    schema,
    name,
    kind: 'table',
    insertable: true,
    updatable: true,
    deletable: true,
    primaryKey: ['id'],
    uniqueKeys: [['id']],
    columns,
    description: null,
    ...extra,
  };
}

const authors = table(
  'public',
  'authors',
  [
    column('id', 'bigint', 'int8', { nullable: false, description: 'Author number' }),
    column('name', 'text', 'text', { nullable: false }),
  ],
  { description: 'Who wrote what' },
);

const books = table(
  'public',
  'books',
  [
    column('id', 'integer', 'int4', {
      nullable: false,
      default: "nextval('books_id_seq'::regclass)",
    }),
    column('author_id', 'bigint', 'int8', { nullable: false }),
    column('title', 'character varying(100)', 'varchar', {
      nullable: false,
      maxLength: 100,
      category: 'S',
      description: 'As printed on the cover',
    }),
    column('status', 'public.book_status', 'book_status', {
      nullable: false,
      default: "'draft'::book_status",
      enumValues: ['draft', 'published'],
      category: 'E',
    }),
    column('tags', 'text[]', '_text', { default: "'{}'::text[]" }),
    column('scores', 'integer[]', '_int4'),
    column('metadata', 'jsonb', 'jsonb', { category: 'U' }),
    column('in_stock', 'boolean', 'bool', { nullable: false, default: 'true', category: 'B' }),
    column('price', 'numeric(10,2)', 'numeric', { default: '0' }),
    column('note', 'text', 'text', { default: "'it''s new'::text" }),
    column('created_at', 'timestamp with time zone', 'timestamptz', { default: 'now()' }),
  ],
  { description: 'Books\n\nEvery book we sell.' },
);

const bookTitles = table(
  'public',
  'book_titles',
  [column('id', 'integer', 'int4'), column('title', 'character varying(100)', 'varchar')],
  { kind: 'view', insertable: false, updatable: false, deletable: false, primaryKey: [] },
);

const secrets = table('private', 'secrets', [column('id', 'integer', 'int4')]);

const booksToAuthors: Relationship = {
  cardinality: 'm2o',
  origin: { schema: 'public', name: 'books' },
  target: { schema: 'public', name: 'authors' },
  constraint: 'books_author_id_fkey',
  columns: [{ from: 'author_id', to: 'id' }],
  isSelf: false,
};

const authorsToBooks: Relationship = {
  ...booksToAuthors,
  cardinality: 'o2m',
  origin: booksToAuthors.target,
  target: booksToAuthors.origin,
  columns: [{ from: 'id', to: 'author_id' }],
};

const addBook: FunctionDef = {
  schema: 'public',
  name: 'add_book',
  params: [
    { name: 'title', type: 'text', required: true, variadic: false },
    { name: 'author_id', type: 'bigint', required: false, variadic: false },
  ],
  returns: { kind: 'composite', setOf: false, type: 'books', table: books },
  volatility: 'volatile',
  description: null,
};

const searchBooks: FunctionDef = {
  schema: 'public',
  name: 'search_books',
  params: [
    { name: 'query', type: 'text', required: true, variadic: false },
    { name: 'max_price', type: 'numeric', required: false, variadic: false },
    { name: 'ids', type: 'integer[]', required: false, variadic: false },
    { name: 'tags', type: 'text[]', required: false, variadic: true },
  ],
  returns: { kind: 'composite', setOf: true, type: 'books', table: books },
  volatility: 'stable',
  description: 'Search books\nBy title and tags.',
};

const rotate: FunctionDef = { ...addBook, schema: 'private', name: 'rotate', params: [] };

const key = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

const cache: SchemaCache = {
  version: 1,
  schemas: ['public', 'private'],
  // Deliberately out of order: the document sorts.
  tables: new Map([books, secrets, bookTitles, authors].map((t) => [key(t), t])),
  relationships: new Map([
    ['public.books', [booksToAuthors]],
    ['public.authors', [authorsToBooks]],
  ]),
  functions: new Map([
    ['public.search_books', [searchBooks]],
    ['private.rotate', [rotate]],
    ['public.add_book', [addBook]],
  ]),
};

type Doc = Record<string, Record<string, Record<string, Record<string, unknown>>>>;

const options = { schema: 'public', basePath: '/rest/v1', version: '12.2.0' };
const doc = buildOpenApi(cache, { ...options, host: 'localhost:8000', schemes: ['http'] }) as Doc;

const ref = (name: string) => ({ $ref: `#/parameters/${name}` });
const mediaTypes = [
  'application/json',
  'application/vnd.pgrst.object+json;nulls=stripped',
  'application/vnd.pgrst.object+json',
  'text/csv',
];

describe('buildOpenApi', () => {
  it('describes the document itself', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({
      title: 'Baseplate REST API',
      description: 'This is a dynamic API generated by Baseplate, compatible with PostgREST',
      version: '12.2.0',
    });
    expect(doc.host).toBe('localhost:8000');
    expect(doc.basePath).toBe('/rest/v1');
    expect(doc.schemes).toEqual(['http']);
    expect(doc.consumes).toEqual(mediaTypes);
    expect(doc.produces).toEqual(mediaTypes);
  });

  it('leaves out host and schemes when not given, and takes a title', () => {
    const plain = buildOpenApi(cache, { ...options, title: 'My API' }) as Doc;
    expect(plain).not.toHaveProperty('host');
    expect(plain).not.toHaveProperty('schemes');
    expect(plain.info?.title).toBe('My API');
  });

  it('lists paths and definitions of the schema only, in a fixed order', () => {
    expect(Object.keys(doc.paths ?? {})).toEqual([
      '/',
      '/authors',
      '/book_titles',
      '/books',
      '/rpc/add_book',
      '/rpc/search_books',
    ]);
    expect(Object.keys(doc.definitions ?? {})).toEqual(['authors', 'book_titles', 'books']);
    const text = JSON.stringify(doc);
    expect(text).not.toContain('secrets');
    expect(text).not.toContain('rotate');
    expect(JSON.stringify(buildOpenApi(cache, { ...options, schema: 'private' }))).not.toContain(
      'books',
    );
  });

  it('describes the root as introspection', () => {
    expect(doc.paths?.['/']).toEqual({
      get: {
        tags: ['Introspection'],
        summary: 'OpenAPI description (this document)',
        produces: ['application/openapi+json', 'application/json'],
        responses: { '200': { description: 'OK' } },
      },
    });
  });

  it('gives a writable table get, post, patch and delete', () => {
    const rowFilters = ['id', 'name'].map((c) => ref(`rowFilter.authors.${c}`));
    const base = { tags: ['authors'], summary: 'Who wrote what' };
    expect(doc.paths?.['/authors']).toEqual({
      get: {
        ...base,
        parameters: [
          ...rowFilters,
          ...['select', 'order', 'range', 'rangeUnit', 'offset', 'limit', 'preferCount'].map(ref),
        ],
        responses: {
          '200': {
            description: 'OK',
            schema: { type: 'array', items: { $ref: '#/definitions/authors' } },
          },
          '206': { description: 'Partial Content' },
        },
      },
      post: {
        ...base,
        parameters: [ref('body.authors'), ref('select'), ref('preferPost')],
        responses: { '201': { description: 'Created' } },
      },
      patch: {
        ...base,
        parameters: [...rowFilters, ref('body.authors'), ref('preferReturn')],
        responses: { '204': { description: 'No Content' } },
      },
      delete: {
        ...base,
        parameters: [...rowFilters, ref('preferReturn')],
        responses: { '204': { description: 'No Content' } },
      },
    });
  });

  it('splits a table comment into summary and description', () => {
    const get = doc.paths?.['/books']?.get;
    expect(get?.summary).toBe('Books');
    expect(get?.description).toBe('Every book we sell.');
    expect(doc.definitions?.books?.description).toBe('Books\n\nEvery book we sell.');
  });

  it('gives a read-only view get only', () => {
    const path = doc.paths?.['/book_titles'] ?? {};
    expect(Object.keys(path)).toEqual(['get']);
    expect(path.get).not.toHaveProperty('summary');
  });

  it('defines table columns with types, formats, defaults, enums and key notes', () => {
    expect(doc.definitions?.books).toEqual({
      description: 'Books\n\nEvery book we sell.',
      type: 'object',
      properties: {
        id: {
          description: 'Note:\nThis is a Primary Key.<pk/>',
          format: 'integer',
          type: 'integer',
        },
        author_id: {
          description:
            "Note:\nThis is a Foreign Key to `authors.id`.<fk table='authors' column='id'/>",
          format: 'bigint',
          type: 'integer',
        },
        title: {
          description: 'As printed on the cover',
          format: 'character varying',
          maxLength: 100,
          type: 'string',
        },
        status: {
          default: 'draft',
          enum: ['draft', 'published'],
          format: 'public.book_status',
          type: 'string',
        },
        tags: { format: 'text[]', items: { type: 'string' }, type: 'array' },
        scores: { format: 'integer[]', items: { type: 'integer' }, type: 'array' },
        metadata: { format: 'jsonb' },
        in_stock: { default: true, format: 'boolean', type: 'boolean' },
        price: { default: 0, format: 'numeric', type: 'number' },
        note: { default: "it's new", format: 'text', type: 'string' },
        created_at: { default: 'now()', format: 'timestamp with time zone', type: 'string' },
      },
      required: ['id', 'author_id', 'title', 'status', 'in_stock'],
    });
  });

  it('puts the column comment before the notes, and ignores one-to-many entries', () => {
    expect(doc.definitions?.authors?.properties).toEqual({
      id: {
        description: 'Author number\n\nNote:\nThis is a Primary Key.<pk/>',
        format: 'bigint',
        type: 'integer',
      },
      name: { format: 'text', type: 'string' },
    });
  });

  it('exposes a volatile function through POST only', () => {
    expect(doc.paths?.['/rpc/add_book']).toEqual({
      post: {
        tags: ['(rpc) add_book'],
        produces: mediaTypes.slice(0, 3),
        responses: { '200': { description: 'OK' } },
        parameters: [
          {
            name: 'args',
            required: true,
            in: 'body',
            schema: {
              type: 'object',
              properties: {
                title: { format: 'text', type: 'string' },
                author_id: { format: 'bigint', type: 'integer' },
              },
              required: ['title'],
            },
          },
          ref('preferParams'),
        ],
      },
    });
  });

  it('exposes a stable function through GET and POST', () => {
    const path = doc.paths?.['/rpc/search_books'] ?? {};
    expect(Object.keys(path)).toEqual(['get', 'post']);
    expect(path.get).toEqual({
      tags: ['(rpc) search_books'],
      summary: 'Search books',
      description: 'By title and tags.',
      produces: mediaTypes.slice(0, 3),
      responses: { '200': { description: 'OK' } },
      parameters: [
        { name: 'query', required: true, in: 'query', type: 'string', format: 'text' },
        { name: 'max_price', required: false, in: 'query', type: 'number', format: 'numeric' },
        // Arrays travel as `{1,2}` text in a query string.
        { name: 'ids', required: false, in: 'query', type: 'string', format: 'integer[]' },
        {
          name: 'tags',
          required: false,
          in: 'query',
          type: 'array',
          items: { type: 'string', format: 'text' },
          collectionFormat: 'multi',
        },
      ],
    });
    expect(path.post?.parameters).toEqual([
      {
        name: 'args',
        required: true,
        in: 'body',
        schema: {
          description: 'Search books\nBy title and tags.',
          type: 'object',
          properties: {
            query: { format: 'text', type: 'string' },
            max_price: { format: 'numeric', type: 'number' },
            ids: { format: 'integer[]', type: 'array', items: { type: 'integer' } },
            tags: { format: 'text[]', type: 'array', items: { type: 'string' } },
          },
          required: ['query'],
        },
      },
      ref('preferParams'),
    ]);
  });

  it('shares parameters, with a body and row filters per table', () => {
    const parameters = doc.parameters ?? {};
    expect(Object.keys(parameters).slice(0, 11)).toEqual([
      'preferParams',
      'preferReturn',
      'preferCount',
      'preferPost',
      'select',
      'on_conflict',
      'order',
      'range',
      'rangeUnit',
      'offset',
      'limit',
    ]);
    expect(Object.keys(parameters).slice(11)).toEqual([
      'body.authors',
      'rowFilter.authors.id',
      'rowFilter.authors.name',
      'body.book_titles',
      'rowFilter.book_titles.id',
      'rowFilter.book_titles.title',
      'body.books',
      ...books.columns.map((c) => `rowFilter.books.${c.name}`),
    ]);
    const prefer = { name: 'Prefer', description: 'Preference', required: false, in: 'header' };
    expect(parameters.preferParams).toEqual({ ...prefer, type: 'string' });
    expect(parameters.preferReturn).toEqual({
      ...prefer,
      type: 'string',
      enum: ['return=representation', 'return=minimal', 'return=none'],
    });
    expect(parameters.preferCount).toEqual({ ...prefer, type: 'string', enum: ['count=none'] });
    expect(parameters.preferPost?.enum).toEqual([
      'return=representation',
      'return=minimal',
      'return=none',
      'resolution=ignore-duplicates',
      'resolution=merge-duplicates',
    ]);
    expect(parameters.range).toEqual({
      name: 'Range',
      description: 'Limiting and Pagination',
      required: false,
      in: 'header',
      type: 'string',
    });
    expect(parameters.rangeUnit).toEqual({
      name: 'Range-Unit',
      description: 'Limiting and Pagination',
      required: false,
      in: 'header',
      type: 'string',
      default: 'items',
    });
    expect(parameters.select).toEqual({
      name: 'select',
      description: 'Filtering Columns',
      required: false,
      in: 'query',
      type: 'string',
    });
    expect(parameters['body.books']).toEqual({
      name: 'books',
      description: 'books',
      required: false,
      in: 'body',
      schema: { $ref: '#/definitions/books' },
    });
    expect(parameters['rowFilter.books.title']).toEqual({
      name: 'title',
      description: 'As printed on the cover',
      required: false,
      in: 'query',
      type: 'string',
    });
    expect(parameters['rowFilter.books.id']).not.toHaveProperty('description');
  });

  it('prefers a foreign key to a table over one to a view', () => {
    const toView: Relationship = {
      ...booksToAuthors,
      target: { schema: 'public', name: 'book_titles' },
      constraint: 'view_rel',
    };
    const viewFirst: SchemaCache = {
      ...cache,
      relationships: new Map([['public.books', [toView, booksToAuthors]]]),
    };
    const out = buildOpenApi(viewFirst, options) as Doc;
    const authorId = out.definitions?.books?.properties as Record<string, { description: string }>;
    expect(authorId.author_id?.description).toContain("<fk table='authors' column='id'/>");
  });
});
