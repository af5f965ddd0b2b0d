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

-- The report, shared with the other load scripts (bench/report.lua, beside this file).
done = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
