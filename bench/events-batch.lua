-- wrk script: POST /v1/events/batch with BATCH recurring invoices of random referred users per request.
-- Env: USERS (how many seeded users), ADMIN_KEY, BATCH (events per request, default 500).
local users = tonumber(os.getenv("USERS") or "2000")
local batch = tonumber(os.getenv("BATCH") or "500")
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
  local items = {}
  for i = 1, batch do
    items[i] = string.format('{"userId":"bench-u%d","type":"invoice_paid","amount":4900,"currency":"USD","metadata":{"plan":"pro"}}',
      math.random(1, users))
  end
  return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(items, ",") .. ']}')
end
