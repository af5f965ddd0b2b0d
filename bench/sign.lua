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

-- The report, shared with the other load scripts (bench/report.lua, beside this file).
done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
