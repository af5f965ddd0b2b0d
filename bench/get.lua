-- wrk script: GET STAGE_PATH for the stage ladder of bench/run.sh; a "%s" in the path becomes
-- a different seeded user per request. Environment: STAGE_PATH, TOKEN (optional), USERS.
local token = os.getenv("TOKEN")
local path = os.getenv("STAGE_PATH")
local users = tonumber(os.getenv("USERS") or "1000")
local per_user = string.find(path, "%s", 1, true) ~= nil
local counter = 0

wrk.method = "GET"
if token and token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end

request = function()
  counter = counter + 1
  if per_user then
    return wrk.format(nil, string.format(path, string.format("bench-user-%08d", counter % users)))
  end
  return wrk.format(nil, path)
end

done = function(summary, latency, requests)
  io.write(string.format("non200=%d\n", summary.errors.status))
  io.write(string.format("requests=%d\n", summary.requests))
  io.write(string.format("p50_ms=%.3f\np99_ms=%.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("rps=%.1f\n", summary.requests / (summary.duration / 1e6)))
end
