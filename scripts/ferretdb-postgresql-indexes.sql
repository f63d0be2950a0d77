-- Makes FerretDB 1.24's PostgreSQL backend serve equality lookups from an index, as MongoDB does.
--
-- FerretDB keeps each collection in a table <schema = database>.<collection>_<fnv32a hash> with one
-- jsonb column, _jsonb, and turns every MongoDB index into a btree on ((_jsonb -> 'field')). But it
-- sends an equality filter such as {_id: 'x'} as `_jsonb -> '_id' @> '"x"'` (or `_jsonb #> '{a,b}' @>`
-- for a dotted path), which a btree cannot serve: every findOne({_id}) is a sequential scan.
--
-- This event trigger gives every such btree a twin the planner can use for `@>`: a GIN jsonb_path_ops
-- index on the btree's first key expression (the field an equality lookup names; the rest of a
-- compound key only orders, which FerretDB 1.24 does in Go anyway). It fires on FerretDB's own
-- CREATE INDEX, so tables created lazily (first insert, createIndexes at an adapter's start) get their
-- twins at that moment, with no maintenance step. FerretDB neither knows nor lists these indexes.
-- Applied by scripts/services.sh to the database FerretDB uses; idempotent.

CREATE SCHEMA IF NOT EXISTS test_stand;

CREATE OR REPLACE FUNCTION test_stand.jsonb_path_ops_twin() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  command record;
  expression text;
  keys text[];
  twin_expression text;
  twin_name text;
BEGIN
  FOR command IN
    SELECT c.objid, i.indrelid, t.relname AS table_name, n.nspname AS schema_name
    FROM pg_event_trigger_ddl_commands() c
    JOIN pg_index i ON i.indexrelid = c.objid
    JOIN pg_class x ON x.oid = c.objid
    JOIN pg_am a ON a.oid = x.relam AND a.amname = 'btree'
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.object_type = 'index'
      AND t.relname <> '_ferretdb_database_metadata'
      AND EXISTS (
        SELECT 1 FROM pg_class m
        WHERE m.relnamespace = n.oid AND m.relname = '_ferretdb_database_metadata' AND m.relkind = 'r'
      )
  LOOP
    -- FerretDB writes the first key as ((_jsonb -> 'a')) or ((_jsonb -> 'a') -> 'b') for a.b.
    expression := pg_get_indexdef(command.objid, 1, false);
    IF expression !~ '^\(*_jsonb ->' THEN
      CONTINUE;
    END IF;
    SELECT array_agg(replace(m[1], '''''', '''') ORDER BY ordinality) INTO keys
    FROM regexp_matches(expression, '''((?:[^'']|'''')*)''::text', 'g') WITH ORDINALITY AS r(m, ordinality);
    IF keys IS NULL THEN
      CONTINUE;
    END IF;
    -- The same expression FerretDB's filters use: -> for one field, #> with a text[] path for a dotted one.
    IF cardinality(keys) = 1 THEN
      twin_expression := format('(_jsonb -> %L)', keys[1]);
    ELSE
      twin_expression := format('(_jsonb #> %L::text[])', keys::text);
    END IF;
    twin_name := left(command.table_name, 40) || '_gin_' || left(md5(twin_expression), 12);
    EXECUTE format(
      'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s jsonb_path_ops) WITH (fastupdate = off)',
      twin_name, command.schema_name, command.table_name, twin_expression
    );
  END LOOP;
END
$$;

DROP EVENT TRIGGER IF EXISTS ferretdb_jsonb_path_ops_twins;
CREATE EVENT TRIGGER ferretdb_jsonb_path_ops_twins ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION test_stand.jsonb_path_ops_twin();
