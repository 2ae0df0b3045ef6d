// What the rollup upkeep costs a batch of clicks, in the database alone (issue 31): the click
// buffer's batches (one insert statement of BATCH clicks, its own transaction) with the rollups' and
// the breakdowns' triggers on, and with them off (the floor: the insert and its indexes), alternating.
// The clicks are varied (200 links of 50 partners in 5 campaigns; sub-IDs, countries, devices,
// browsers and referrers drawn at random, a tenth filtered), so the breakdowns group many buckets.
// A fresh database from the working tree's migrations; to compare with an older commit, run this
// file from that commit's checkout.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/click-upkeep.ts
//   BATCH=2000 BATCHES=50 ROUNDS=5 ...
import { createTestDatabase, startTestServer } from '../test/support/postgres';

const BATCH = Number(process.env.BATCH ?? 2000);
const BATCHES = Number(process.env.BATCHES ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const server = await startTestServer();
const db = await createTestDatabase(server);
const { sql } = db;

/**
 * The batches, made ahead into a table of their own (minting ids in SQL costs more than writing the
 * click): batch b holds BATCH clicks minted over 100 ms, every batch in the same UTC day.
 */
async function stage(batches: number): Promise<void> {
  await sql`drop table if exists staged_clicks`;
  await sql`
    create unlogged table staged_clicks as
    select b, left(partnerd_id_floor('clk', date_trunc('day', now()) + interval '1 hour' + (b * 100 + (i * 100) / ${BATCH}) * interval '1 ms'), 14)
        || substr(md5(random()::text), 1, 16) as id,
      'lnk_' || l as link_id, 'ptn_' || (l % 50) as partner_id, 'cmp_' || (l % 5) as campaign_id, 'iphash' as ip_hash, 'bench-agent' as user_agent,
      case when random() < 0.1 then 'bot_click' end as uncredited_reason,
      case when random() < 0.5 then 'sub-' || (random() * 20)::int end as sub_id, 'C' || (random() * 30)::int as country,
      (array['desktop', 'mobile', 'tablet'])[1 + (random() * 2)::int] as device, 'B' || (random() * 8)::int as browser,
      case when random() < 0.6 then 'site' || (random() * 50)::int || '.example' end as referrer_domain
    from generate_series(0, ${batches - 1}) b, generate_series(1, ${BATCH}) i, lateral (select (random() * 199)::int + i * 0 + b * 0 as l) k`;
  await sql`create index on staged_clicks (b)`;
}

const COLUMNS = 'id, link_id, partner_id, campaign_id, ip_hash, user_agent, uncredited_reason, sub_id, country, device, browser, referrer_domain';
let next = 0;

/** Writes the next BATCHES batches, one statement (and transaction) each; answers the mean ms a batch. */
async function timed(): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < BATCHES; i++) await sql.unsafe(`insert into clicks (${COLUMNS}) select ${COLUMNS} from staged_clicks where b = $1`, [next++]);
  return (performance.now() - started) / BATCHES;
}

const upkeep = (on: boolean) => sql.unsafe(`alter table clicks ${on ? 'enable' : 'disable'} trigger clicks_rollup, ${on ? 'enable' : 'disable'} trigger clicks_breakdown`);

await stage(BATCHES * (2 * ROUNDS + 1));
const runs: { on: number; off: number }[] = [];
await timed(); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  await upkeep(false);
  const off = await timed();
  await upkeep(true);
  const on = await timed();
  runs.push({ on, off });
  console.log(`round ${r + 1}: on ${on.toFixed(2)} ms a batch, off ${off.toFixed(2)} ms, upkeep ${(on - off).toFixed(2)} ms (${((1000 * (on - off)) / BATCH).toFixed(2)} µs a click)`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const on = median(runs.map((r) => r.on));
const off = median(runs.map((r) => r.off));
console.log(`median of ${ROUNDS}: on ${on.toFixed(2)} ms, off ${off.toFixed(2)} ms a batch of ${BATCH}; the triggers ${(on - off).toFixed(2)} ms (${(((on - off) / off) * 100).toFixed(0)}% of the floor)`);
await db.drop();
await server.stop();
