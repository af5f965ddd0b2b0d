-- wrk script for the C reference server (bench/ceiling.sh): POST /v1/offers/sign, a different
-- user per request, in turn from the list the server wrote at start-up (its users are its own
-- history's). Environment: USERS_FILE, TOKEN, OFFER, PRODUCT.
local token = os.getenv("TOKEN")
local offer = os.getenv("OFFER") or "bench_winback"
local product = os.getenv("PRODUCT") or "com.example.app.pro_monthly"
local users = {}
for line in io.lines(os.getenv("USERS_FILE")) do users[#users + 1] = line end
local counter = 0

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

request = function()
  counter = counter + 1
  local user = users[(counter % #users) + 1]
  local body = string.format('{"productId":"%s","offerId":"%s","userId":"%s"}', product, offer, user)
  return wrk.format(nil, "/v1/offers/sign", nil, body)
end

done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
