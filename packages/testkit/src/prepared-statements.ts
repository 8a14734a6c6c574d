import { createSql, type Sql } from "@gateway/db";

/**
 * A client with one connection, and the texts of the statements that connection has prepared
 * holding `fragment`: postgres.js prepares each distinct text once per connection, so a query
 * whose text follows the number of its values shows up once per size (docs/operations.md, "One
 * statement text per query").
 */
export function singleConnection(url: string): {
  sql: Sql;
  preparedTexts(fragment: string): Promise<string[]>;
} {
  const sql = createSql({ url, max: 1, applicationName: "prepared-statements-test" });
  return {
    sql,
    async preparedTexts(fragment) {
      const rows = await sql<{ statement: string }[]>`
        select statement from pg_prepared_statements
        where strpos(statement, ${fragment}) > 0 and strpos(statement, 'pg_prepared_statements') = 0`;
      return rows.map((r) => r.statement);
    },
  };
}
