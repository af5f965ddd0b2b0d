-- wrk script: POST /v1/offers/placement for the bench placement, a different user per request.
-- Environment: TOKEN (client API token), PLACEMENT, PRODUCT, USERS (how many distinct users).
local token = os.getenv("TOKEN")
local placement = os.getenv("PLACEMENT") or "bench_placement"
local product = os.getenv("PRODUCT") or "com.example.app.pro_monthly"
local users = tonumber(os.getenv("USERS") or "1000")
local counter = 0

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

request = function()
  counter = counter + 1
  local user = string.format("bench-user-%08d", counter % users)
  local body = string.format('{"productId":"%s","placement":"%s","userId":"%s"}', product, placement, user)
  return wrk.format(nil, "/v1/offers/placement", nil, body)
end

done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
