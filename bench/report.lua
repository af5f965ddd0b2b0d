-- What bench/run.sh reads of a wrk run (wrk_value NAME): loaded by get.lua and sign.lua.
return function(summary, latency, requests)
  io.write(string.format("non200=%d\n", summary.errors.status))
  io.write(string.format("requests=%d\n", summary.requests))
  io.write(string.format("p50_ms=%.3f\np99_ms=%.3f\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
  io.write(string.format("rps=%.1f\n", summary.requests / (summary.duration / 1e6)))
end
