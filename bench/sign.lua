-- wrk script: POST /v1/offers/sign for the bench offer, a different user per request.
-- Environment: TOKEN (client API token), OFFER, PRODUCT, USERS (how many distinct users).
local token = os.getenv("TOKEN")
local offer = os.getenv("OFFER") or "bench_winback"
local product = os.getenv("PRODUCT") or "com.example.app.pro_monthly"
local users = tonumber(os.getenv("USERS") or "1000")
local counter = 0

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

request = function()
  counter = counter + 1
  local user = string.format("bench-user-%08d", counter % users)
  local body = string.format('{"productId":"%s","offerId":"%s","userId":"%s"}', product, offer, user)
  return wrk.format(nil, "/v1/offers/sign", nil, body)
end

local failures = 0
response = function(status, headers, body)
  if status ~= 200 then failures = failures + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("non200=%d\n", summary.errors.status))
  io.write(string.format("requests=%d\n", summary.requests))
  io.write(string.format("p50_ms=%.3f\np99_ms=%.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("rps=%.1f\n", summary.requests / (summary.duration / 1e6)))
end
