-- The log search reads a line as the console shows it: without the ANSI terminal escapes
-- (colours, cursor moves) a program wrote for a terminal (docs/task-logs.md, "GET /api/v1/logs/search").
-- Searching the stored text missed a line whose visible words a colour code split
-- ("\e[31mERROR\e[0m: disk full" for "ERROR: disk") and found lines by the escapes' own
-- characters ("[31m"), which the console never shows.
--
-- task_log_line_plain(text) removes what the console's strip-ansi removes: the pattern is
-- ansi-regex 5.0.1's (the package strip-ansi 6 uses), in PostgreSQL's regular expression
-- syntax. On well-formed escapes the two agree (tests/integration/task-log-search-plain.test.ts
-- compares them); on malformed ones PostgreSQL's longest match may take a few more characters
-- than JavaScript's first match. Lines without an escape character are returned as they are
-- without running the expression.
CREATE FUNCTION task_log_line_plain(line text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN strpos(line, U&'\001B') > 0 OR strpos(line, U&'\009B') > 0
              THEN regexp_replace(line,
                '[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d\/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d\/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))',
                '', 'g')
              ELSE line END
$$;

-- The trigram index moves to the plain text (built on every weekly partition; a database with
-- months of log lines takes a while here). lib/task-logs/search-lines.ts searches the same
-- expression, which is what lets PostgreSQL use the index.
DROP INDEX task_log_lines_text_trgm_idx;
CREATE INDEX task_log_lines_plain_trgm_idx ON task_log_lines USING gin (task_log_line_plain(text) gin_trgm_ops)
  WITH (gin_pending_list_limit = 16384);
