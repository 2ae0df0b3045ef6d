-- wrk script: POST /v1/events/batch with BATCH recurring invoices of random referred users per request.
-- Env: USERS (how many seeded users), ADMIN_KEY, BATCH (events per request, default 500).
local users = tonumber(os.getenv("USERS") or "2000")
local batch = tonumber(os.getenv("BATCH") or "500")
-- the POST, its headers and the per-thread random seed: wrk-post.lua beside this file
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") .. "wrk-post.lua")

request = function()
  local items = {}
  for i = 1, batch do
    items[i] = string.format('{"userId":"bench-u%d","type":"invoice_paid","amount":4900,"currency":"USD","metadata":{"plan":"pro"}}',
      math.random(1, users))
  end
  return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(items, ",") .. ']}')
end
