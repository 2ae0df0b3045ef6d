-- Shared by the wrk scripts here (loaded with dofile from this folder): POST JSON with the admin key
-- (env ADMIN_KEY), and each thread seeds its own random numbers.
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
