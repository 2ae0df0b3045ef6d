-- wrk script for bench/dashboard-writes.ts: POST /v1/events for a random seeded customer (u0 ... u<USERS-1>
-- of bench/dashboard-seed.sql, each with a referral), a recurring invoice. Env: USERS, ADMIN_KEY.
local users = tonumber(os.getenv("USERS") or "1000")
-- the POST, its headers and the per-thread random seed: wrk-post.lua beside this file
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") .. "wrk-post.lua")

request = function()
  return wrk.format(nil, nil, nil,
    string.format('{"userId":"u%d","type":"invoice_paid","amount":4900,"currency":"USD"}', math.random(0, users - 1)))
end
