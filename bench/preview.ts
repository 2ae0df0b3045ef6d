// Rule preview benchmark: seeds EVENTS attributed events (one referred customer each, PARTNERS
// partners, one campaign, spread over the last 30 days) with their referrals, attributions and
// commissions (set-based SQL), then times POST /v1/campaigns/:id/preview's service under a tiered
// draft rule. The floor is one read of the same rows (the events joined to their attributions,
// summed in SQL), measured in the same run; the ratio says what the replay adds to reading.
//
//   bun run bench/preview.ts                     # embedded PostgreSQL, 100,000 events
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench/preview.ts
//   EVENTS=20000 PARTNERS=200 RUNS=5 bun run bench/preview.ts
import { newId } from '../src/lib/ids';
import { previewRules } from '../src/modules/commissions/preview';
import type { Rule } from '../src/modules/campaigns/rules';
import { createTestDatabase, startTestServer } from '../test/support/postgres';

const events = Number(process.env.EVENTS ?? 100_000);
const partners = Number(process.env.PARTNERS ?? 1_000);
const runs = Number(process.env.RUNS ?? 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const server = await startTestServer();
const db = await createTestDatabase(server);
const sql = db.sql;
try {
  const [version] = await sql`select current_setting('server_version') as v`;
  console.log(`PostgreSQL ${version!.v}; seeding ${events} events for ${partners} partners`);
  let t = performance.now();
  const tag = newId('partner').slice(-6);
  const now = newId('partner').slice(4, 14);
  const id = (prefix: string, n: string) => sql`${`${prefix}_${now}${tag}`} || lpad(to_hex(${sql.unsafe(n)}), 10, '0')`;
  const campaignId = newId('campaign');
  const live: Rule[] = [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }];
  await sql`insert into campaigns (id, name, destination_url, currency, rules, recruiter_percent)
            values (${campaignId}, 'Bench', 'https://example.com/', 'USD', ${sql.json(live as never)}, 5)`;
  await sql`insert into partners (id, email, name, activated_at)
            select ${id('ptn', 'i')}, ${tag} || '-' || i || '@example.com', 'Partner ' || i, now() from generate_series(1, ${partners}) i`;
  // every tenth partner was recruited by partner 1 (overrides in the replay)
  await sql`update partners set referred_by = ${id('ptn', '1')} where id in (select ${id('ptn', 'i')} from generate_series(2, ${partners}, 10) i)`;
  const partnerOf = `((n - 1) % ${partners}) + 1`;
  const at = sql`now() - make_interval(secs => (n * 25920.0 / ${events})::int * 100)`; // spread over 30 days
  await sql`insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
            select ${id('evt', 'n')}, 'u' || n, 'invoice_paid', 1000 + (n * 37) % 90000, 'USD', ${at}, 'attributed', 'last_click'
            from generate_series(1, ${events}) n`;
  await sql`insert into referrals (user_id, model, started_at) select 'u' || n, 'last_click', ${at} from generate_series(1, ${events}) n`;
  await sql`insert into referral_touches (user_id, position, click_id, partner_id, campaign_id, weight_num, weight_den)
            select 'u' || n, 0, ${id('clk', 'n')}, ${id('ptn', partnerOf)}, ${campaignId}, 1, 1 from generate_series(1, ${events}) n`;
  await sql`insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight, occurred_at, rule_source)
            select ${id('att', 'n')}, ${id('evt', 'n')}, 'u' || n, ${id('clk', 'n')}, ${id('ptn', partnerOf)}, ${campaignId}, 'last_click', 1, ${at}, 'campaign'
            from generate_series(1, ${events}) n`;
  await sql`insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency, event_type, event_value, holdback_days, rule_source)
            select ${id('com', 'n')}, ${id('att', 'n')}, ${id('evt', 'n')}, ${id('ptn', partnerOf)}, ${campaignId}, 'u' || n,
                   (1000 + (n * 37) % 90000) / 10, 'USD', 'invoice_paid', 1000 + (n * 37) % 90000, 30, 'campaign'
            from generate_series(1, ${events}) n`;
  await sql`vacuum analyze`;
  console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const draft: Rule[] = [
    { eventType: 'invoice_paid', kind: 'percent', percent: 12, periodDays: 30, tiers: [{ minRevenue: '2000', percent: 15 }, { minCustomers: 80, percent: 18 }] },
  ];
  const floorTimes: number[] = [];
  const previewTimes: number[] = [];
  let answer: Awaited<ReturnType<typeof previewRules>> | undefined;
  // alternate floor and preview so that the shared machine's load falls on both alike
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    await sql`select a.partner_id, sum(e.amount)::bigint, count(*) from attributions a join events e on e.id = a.event_id
              where a.campaign_id = ${campaignId} and a.occurred_at >= now() - interval '30 days' group by 1`;
    floorTimes.push(performance.now() - t);
    t = performance.now();
    answer = await previewRules(sql, { campaignId, rules: draft, days: 30 });
    previewTimes.push(performance.now() - t);
    console.log(`run ${i + 1}: floor ${floorTimes[i]!.toFixed(0)} ms, preview ${previewTimes[i]!.toFixed(0)} ms`);
  }
  const floor = median(floorTimes);
  const preview = median(previewTimes);
  console.log(`preview of ${events} events: median ${preview.toFixed(0)} ms over ${runs} runs (min ${Math.min(...previewTimes).toFixed(0)}, max ${Math.max(...previewTimes).toFixed(0)})`);
  console.log(`floor (one grouped read of the same rows): median ${floor.toFixed(0)} ms; preview / floor = ${(preview / floor).toFixed(1)}x`);
  console.log(`answer: ${answer!.partners.length} partners, total current ${answer!.total.current}, preview ${answer!.total.preview} ${answer!.currency}`);
  console.log(preview < 2000 ? 'goal (< 2 s) met' : 'goal (< 2 s) NOT met');
} finally {
  await db.drop();
  await server.stop();
}
