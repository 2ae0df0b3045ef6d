-- The rollup and breakdown triggers run one statement per write over the statement's rows. Once the
-- tables they read are large (or their statistics stale, as inside a long import), the planner's
-- cost for those statements passes jit_above_cost and PostgreSQL JIT-compiles them, on every call:
-- 260-480 ms of a 400-500 ms trigger statement in an import's batches (auto_explain), far more than
-- the statement itself. These functions never gain from JIT (their statements touch a batch's rows
-- through index lookups): it is off inside them. The inlined helpers (partnerd_rollup_grains,
-- partnerd_attribution_links) are left alone: a SET clause would stop their inlining.
alter function partnerd_rollup_clicks() set jit = off;
alter function partnerd_rollup_clicks_changed() set jit = off;
alter function partnerd_rollup_touches() set jit = off;
alter function partnerd_rollup_events() set jit = off;
alter function partnerd_rollup_referrals() set jit = off;
alter function partnerd_rollup_attributions() set jit = off;
alter function partnerd_rollup_commissions() set jit = off;
alter function partnerd_rollup_fold(int) set jit = off;
alter function partnerd_breakdown_clicks() set jit = off;
alter function partnerd_breakdown_clicks_changed() set jit = off;
alter function partnerd_breakdown_conversions() set jit = off;
alter function partnerd_breakdown_fold(int) set jit = off;
