-- wrk script: POST /v1/offers/introductory-eligibility, a different seeded user per request.
-- Environment: TOKEN (client API token), PRODUCTS (comma-separated product IDs), MODE (single:
-- one product per request, the next of PRODUCTS each time; page: every one of PRODUCTS in one
-- request, as `productIds`), USERS (how many distinct users).
local token = os.getenv("TOKEN")
local mode = os.getenv("MODE") or "single"
local users = tonumber(os.getenv("USERS") or "1000")
local products = {}
for product in string.gmatch(os.getenv("PRODUCTS") or "", "[^,]+") do products[#products + 1] = product end
local counter = 0

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

local page = '"' .. table.concat(products, '","') .. '"'

request = function()
  counter = counter + 1
  local user = string.format("bench-user-%08d", counter % users)
  local body
  if mode == "page" then
    body = string.format('{"productIds":[%s],"userId":"%s","transactionId":"2000000000000001"}', page, user)
  else
    body = string.format('{"productId":"%s","userId":"%s","transactionId":"2000000000000001"}',
                         products[(counter % #products) + 1], user)
  end
  return wrk.format(nil, "/v1/offers/introductory-eligibility", nil, body)
end

done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
