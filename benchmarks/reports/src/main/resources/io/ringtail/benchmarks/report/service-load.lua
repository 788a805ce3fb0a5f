-- The service load report's closed loop under wrk (io.ringtail.benchmarks.report.WrkLoad): the
-- load target's two endpoints alternated, as HttpLoad's clients do, over ids 0 to connections - 1.
-- Argument (after wrk's "--"): the connections of each thread. Thread t asks for the ids
-- t * perThread .. (t + 1) * perThread - 1 in turn, each id for /orders/{id} and then for
-- /items/{id}/price, so the load as a whole sends HttpLoad's paths in equal numbers.

local threads = 0

-- in wrk's main state, once per thread before it starts: the thread's index
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

local perThread = 1
local first = 0
local n = 0

-- in the thread's own state
function init(args)
  perThread = tonumber(args[1])
  first = index * perThread
end

function request()
  local id = first + math.floor(n / 2) % perThread
  local path
  if n % 2 == 0 then
    path = "/orders/" .. id
  else
    path = "/items/" .. id .. "/price"
  end
  n = n + 1
  return wrk.format("GET", path)
end
