-- The part of every wrk script of the bench (bench/load.js puts a scenario's own lines first):
-- answers counted by status, varying requests numbered across threads and runs, and the figures as
-- one JSON line on stdout.
--
-- Globals, so that done() can read them from each thread (thread:get); set by setup() and init().
-- wrk also calls request() once in its main state to check it, where neither ran: the defaults.
thread_id, first, stride, made, statuses = 0, 0, 1, 0, {}

-- A scenario with a `make(k, data)` function (its requests change with each call): thread t of n
-- makes requests first + t, first + t + n, first + t + 2n... `made` says how many, so that the next
-- run starts after the last one and no request repeats (each write must be new).
if make ~= nil then
  function request()
    local k = first + thread_id + made * stride
    made = made + 1
    local method, path, headers, body = make(k, data)
    return wrk.format(method, path, headers, body)
  end
end

-- Arguments after `--`: the first k, the number of threads.
function init(args)
  first = tonumber(args[1]) or 0
  stride = tonumber(args[2]) or 1
end

-- Every answer by status, so that a 3xx or an unexpected 2xx shows too (wrk itself counts only
-- statuses above 399). Defining response() makes wrk hand over headers and body: about 1.5 µs of
-- its CPU a request.
function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end

local threads = {}
function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end

function done(summary, latency)
  local counts, codes, next_k = {}, {}, 0
  for _, thread in ipairs(threads) do
    for code, count in pairs(thread:get("statuses")) do
      counts[code] = (counts[code] or 0) + count
    end
    local id, n = thread:get("thread_id"), thread:get("made")
    if n > 0 then next_k = math.max(next_k, id + (n - 1) * #threads + 1) end
  end
  for code, count in pairs(counts) do
    codes[#codes + 1] = string.format('"%d":%d', code, count)
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"durationUs":%d,"requests":%d,"bytes":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f},"statusCodes":{%s},"made":%d}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    table.concat(codes, ","), next_k))
end
