-- wrk script for bench/dashboard-writes.ts: POST /v1/events for a random seeded customer (u0 ... u<USERS-1>
-- of bench/dashboard-seed.sql, each with a referral), a recurring invoice. Env: USERS, ADMIN_KEY.
local users = tonumber(os.getenv("USERS") or "1000")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("ADMIN_KEY") or "")

local counter = 0
setup = function(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

init = function()
  math.randomseed(os.time() * 1000 + (seed or 0))
end

request = function()
  return wrk.format(nil, nil, nil,
    string.format('{"userId":"u%d","type":"invoice_paid","amount":4900,"currency":"USD"}', math.random(0, users - 1)))
end
