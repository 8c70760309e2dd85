import { bootPlatform, type Platform, type TestProject } from '../../support/platform';
import { request } from '../../support/http';

/** The schema the REST tests run against (created through the SQL endpoint, as a user would). */
export const FIXTURE_SQL = `
CREATE TABLE directors (id int PRIMARY KEY, first_name text, last_name text NOT NULL);
CREATE TABLE films (
  id int PRIMARY KEY,
  director_id int REFERENCES directors(id),
  title text NOT NULL,
  year int,
  rating numeric(3,1),
  tags text[] NOT NULL DEFAULT '{}',
  data jsonb,
  runtime int4range,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE actors (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE film_actors (
  film_id int REFERENCES films(id),
  actor_id int REFERENCES actors(id),
  character text,
  PRIMARY KEY (film_id, actor_id)
);
CREATE TABLE reviews (
  id serial PRIMARY KEY,
  film_id int NOT NULL REFERENCES films(id),
  stars int NOT NULL CHECK (stars BETWEEN 1 AND 5),
  body text
);
CREATE TABLE items (id serial PRIMARY KEY, name text UNIQUE NOT NULL, qty int DEFAULT 7, note text);
CREATE TABLE docs (id serial PRIMARY KEY, body text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED);

INSERT INTO directors VALUES (1, 'Ridley', 'Scott'), (2, 'Sofia', 'Coppola'), (3, 'Jane', 'Campion');
INSERT INTO films (id, director_id, title, year, rating, tags, data, runtime) VALUES
  (1, 1, 'Alien', 1979, 8.5, '{scifi,horror}', '{"budget": 11, "crew": {"dp": "Derek"}}', '[110,120)'),
  (2, 1, 'Blade Runner', 1982, 8.1, '{scifi,noir}', '{"budget": 28, "crew": {"dp": "Jordan"}}', '[110,120)'),
  (3, 2, 'Lost in Translation', 2003, 7.7, '{drama}', '{"budget": 4}', '[100,105)'),
  (4, 2, 'Marie Antoinette', 2006, 6.4, '{drama,history}', null, '[120,125)'),
  (5, 3, 'The Piano', 1993, 7.5, '{drama,"period, romance"}', '{"budget": 7}', '[120,122)'),
  (6, null, 'Untitled (draft)', null, null, '{}', null, null);
INSERT INTO actors VALUES (1, 'Sigourney Weaver'), (2, 'Harrison Ford'), (3, 'Bill Murray'), (4, 'Scarlett Johansson'), (5, 'Holly Hunter');
INSERT INTO film_actors VALUES (1, 1, 'Ripley'), (2, 2, 'Deckard'), (3, 3, 'Bob'), (3, 4, 'Charlotte'), (5, 5, 'Ada');
INSERT INTO reviews (film_id, stars, body) VALUES (1, 5, 'classic'), (1, 4, 'tense'), (2, 5, 'rain'), (3, 3, 'quiet');
INSERT INTO docs (body) VALUES ('The quick brown fox jumps'), ('A lazy dog sleeps'), ('Foxes are quick');

CREATE FUNCTION add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
CREATE FUNCTION films_since(y int) RETURNS SETOF films LANGUAGE sql STABLE AS 'SELECT * FROM films WHERE year >= y';
CREATE FUNCTION touch_item(item_name text) RETURNS void LANGUAGE sql VOLATILE AS $$UPDATE items SET qty = qty + 1 WHERE name = item_name$$;
CREATE FUNCTION whoami() RETURNS json LANGUAGE sql STABLE AS $$SELECT json_build_object('role', current_user, 'sub', auth.uid())$$;
CREATE FUNCTION echo_json(json) RETURNS json LANGUAGE sql IMMUTABLE AS 'SELECT $1';
CREATE FUNCTION film_titles() RETURNS TABLE (id int, title text) LANGUAGE sql STABLE AS 'SELECT id, title FROM films ORDER BY id';

GRANT ALL ON ALL TABLES IN SCHEMA public TO anon, authenticated, service_role;
GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO anon, authenticated, service_role;
`;

export interface RestFixture {
  platform: Platform;
  project: TestProject;
  token: string;
  /** `{base}/projects/<ref>/rest/v1` */
  rest: string;
  sql(query: string): Promise<unknown>;
}

export async function bootRestFixture(
  extraSql = '',
  overrides: Record<string, string> = {},
): Promise<RestFixture> {
  const platform = await bootPlatform(overrides);
  const { token } = await platform.newAccount();
  const project = await platform.newProject(token);
  const fixture: RestFixture = {
    platform,
    project,
    token,
    rest: `${platform.data}/projects/${project.ref}/rest/v1`,
    async sql(query: string) {
      const res = await request(
        platform.control,
        'POST',
        `/v1/projects/${project.ref}/database/query`,
        {
          token,
          body: { query },
        },
      );
      if (res.status !== 201 && res.status !== 200) throw new Error(`SQL failed: ${res.text}`);
      return res.body;
    },
  };
  await fixture.sql(FIXTURE_SQL + extraSql);
  return fixture;
}
