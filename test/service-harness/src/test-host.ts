import type { Bus } from "@gateway/bus";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { PriceService } from "@gateway/prices";
import type { TestBus, TestDatabase } from "@gateway/testkit";

/**
 * What a service started here needs of the test API it runs beside: the same database, stream
 * prefix and secrets. The API's test harness (`@gateway/api/testing`'s TestApi) has this shape;
 * naming it here keeps this package free of the API.
 */
export interface TestHost {
  baseUrl: string;
  db: Pick<TestDatabase, "sql">;
  testBus: Pick<TestBus, "natsUrl" | "prefix">;
  deps: {
    sql: Sql;
    bus: Bus;
    log: Logger;
    config: { WEBHOOK_SECRET_KEY: string };
    prices?: PriceService | undefined;
  };
}
