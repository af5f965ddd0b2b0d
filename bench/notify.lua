-- wrk script: POST /v1/notifications/appstore, each prepared body exactly once.
-- Environment: BODIES (a file, one JSON request body per line, made by make_notifications.py),
-- THREADS (wrk's -t); ENDPOINT and STORED to post elsewhere (the retention run posts real-time
-- requests to /v1/retention/appstore and counts answers holding "promotionalOffer" as stored). Thread k sends lines k, k+THREADS, k+2*THREADS, ... and stops when all
-- of its lines are answered, so the rate below is over exactly the prepared notifications,
-- measured with a monotonic clock (wrk's own -d only bounds the run).
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock_id, bench_timespec *tp);
typedef union { char size[32]; long align; } bench_sem_t;
int sem_init(bench_sem_t *sem, int pshared, unsigned int value);
int sem_post(bench_sem_t *sem);
int sem_getvalue(bench_sem_t *sem, int *value);
typedef unsigned long bench_pthread_t;
bench_pthread_t pthread_self(void);
int pthread_kill(bench_pthread_t thread, int sig);
]]
local ts = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

-- wrk sleeps for the whole -d before it collects the threads, unless SIGINT wakes its main
-- thread: the last thread to finish sends it one (a semaphore counts the finished threads).
local threads = {}
local next_id = 0
local finished_sem = nil
function setup(thread)
  if finished_sem == nil then
    finished_sem = ffi.new("bench_sem_t[1]")
    ffi.C.sem_init(finished_sem, 0, 0)
  end
  thread:set("tid", next_id)
  thread:set("sem_addr", tonumber(ffi.cast("intptr_t", finished_sem)))
  thread:set("main_thread", tonumber(ffi.C.pthread_self()))
  next_id = next_id + 1
  table.insert(threads, thread)
end

local endpoint = os.getenv("ENDPOINT") or "/v1/notifications/appstore"
local stored_mark = os.getenv("STORED") or '"stored"'
local bodies = {}
local sent = 0
answered, stored, duplicate, failed = 0, 0, 0, 0
first_at, last_at = 0, 0

local function finished()
  local sem = ffi.cast("bench_sem_t *", ffi.cast("intptr_t", sem_addr))
  ffi.C.sem_post(sem)
  local value = ffi.new("int[1]")
  ffi.C.sem_getvalue(sem, value)
  if value[0] >= tonumber(os.getenv("THREADS") or "1") then
    ffi.C.pthread_kill(ffi.cast("bench_pthread_t", main_thread), 2) -- SIGINT: wrk stops waiting
  end
end
function init(args)
  local n = tonumber(os.getenv("THREADS") or "1")
  local path = os.getenv("BODIES")
  local file = assert(io.open(path, "r"), "cannot open BODIES file " .. tostring(path))
  local index = 0
  for line in file:lines() do
    if index % n == tid then bodies[#bodies + 1] = line end
    index = index + 1
  end
  file:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  -- wrk calls request() once in the first thread's state to check the script before any
  -- connection exists: that request is never sent, so it must not use up a body.
  verify_call_pending = (tid == 0)
end

function request()
  if verify_call_pending then
    verify_call_pending = false
    return wrk.format("GET", "/healthz", {}, nil)
  end
  sent = sent + 1
  if sent == 1 then first_at = now() end
  if sent <= #bodies then
    return wrk.format("POST", endpoint, nil, bodies[sent])
  end
  -- all prepared bodies are out: until the last answers arrive, each idle connection sends
  -- a cheap request now and then (delay() below spaces them out; they are not counted, and
  -- so few that they barely touch wrk's latency figures).
  return wrk.format("GET", "/healthz", {}, nil)
end

function delay()
  if sent < #bodies then return 0 end
  return 200
end

function response(status, headers, body)
  if answered >= #bodies then return end
  if status == 200 and body == '{"status":"ok"}' then return end -- a /healthz filler, not counted
  answered = answered + 1
  if status == 200 then
    if string.find(body, stored_mark, 1, true) then stored = stored + 1 else duplicate = duplicate + 1 end
  else
    failed = failed + 1
    if failed <= 3 then io.stderr:write(endpoint .. " answered " .. status .. ": " .. string.sub(body, 1, 300) .. "\n") end
  end
  if answered == #bodies then
    last_at = now()
    wrk.thread:stop()
    finished()
  end
end

function done(summary, latency, requests)
  local total, st, dup, fail, t0, t1 = 0, 0, 0, 0, math.huge, 0
  for _, thread in ipairs(threads) do
    if os.getenv("NOTIFY_DEBUG") then io.stderr:write(string.format("thread %d: answered %d stored %d last_at %s\n", thread:get("tid"), thread:get("answered"), thread:get("stored"), tostring(thread:get("last_at")))) end
    total = total + (thread:get("answered") or 0)
    st = st + (thread:get("stored") or 0)
    dup = dup + (thread:get("duplicate") or 0)
    fail = fail + (thread:get("failed") or 0)
    local a, b = thread:get("first_at") or 0, thread:get("last_at") or 0
    if a > 0 and a < t0 then t0 = a end
    if b > t1 then t1 = b end
  end
  local complete = (t1 > 0 and t0 < math.huge)
  local elapsed = complete and (t1 - t0) or (summary.duration / 1e6)
  io.write(string.format("answered=%d\nstored=%d\nduplicate=%d\nfailed=%d\n", total, st, dup, fail))
  io.write(string.format("complete=%s\nelapsed_s=%.3f\n", tostring(complete), elapsed))
  io.write(string.format("stored_per_s=%.1f\n", st / elapsed))
  io.write(string.format("p50_ms=%.3f\np99_ms=%.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
