-- wrk script: POST /v1/events for a random identified, clicked, referred user (a recurring invoice).
-- Env: USERS (how many seeded users), ADMIN_KEY, PACE_MS (delay per request per connection; 0 = flat out).
local users = tonumber(os.getenv("USERS") or "2000")
local pace = tonumber(os.getenv("PACE_MS") or "0")
-- the POST, its headers and the per-thread random seed: wrk-post.lua beside this file
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "") .. "wrk-post.lua")

request = function()
  local u = math.random(1, users)
  return wrk.format(nil, nil, nil,
    string.format('{"userId":"bench-u%d","type":"invoice_paid","amount":4900,"currency":"USD","metadata":{"plan":"pro"}}', u))
end

if pace > 0 then
  delay = function() return pace end
end
