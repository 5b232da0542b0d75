-- tests/lua/state.lua: builds every kind of state a dump must keep,
-- then (check ()) checks each and prints one line per kind.  Run as
--   lua5.4 state.lua                  (build then check, one process)
--   LUA_STATE_DUMP=1 dumper-lua --dump=IMG state.lua   (build only)
--   dumper-lua --image=IMG -e 'check()'                (check)
-- The same lines must come out of all of them (tests/lua/run.sh).
-- With LUA_STATE_DIGEST=FILE it prints the digest of the state
-- (tests/lua/digest.lua) instead of checking.

-- Closures: a closed upvalue shared by two closures.
local function counter ()
  local n = 0
  return function () n = n + 1; return n end, function () return n end
end
inc, get = counter ()
inc (); inc ()

-- A coroutine suspended inside pcall, with an open upvalue into its
-- stack shared with a closure made inside it.
co = coroutine.create (function (a)
  local inside = a
  peek = function () return inside end
  local ok, v = pcall (function ()
    local got = coroutine.yield (inside * 2)
    inside = inside + got
    return inside
  end)
  coroutine.yield (ok and v)
  return "done"
end)
first_yield = select (2, coroutine.resume (co, 10))

-- coroutine.wrap, suspended.
gen = coroutine.wrap (function () for i = 1, 3 do coroutine.yield (i) end end)
gen ()

-- Tables keyed by tables, functions, threads, light C functions.
kt, kf = {}, function () end
keyed = { [kt] = "table", [kf] = "function", [co] = "thread",
          [print] = "cfunction", [1.5] = "float", [true] = "boolean" }
for i = 1, 100 do keyed[{}] = i end   -- many address-hashed keys

-- Weak tables.
strong = {}
weakv = setmetatable ({ strong, {} }, { __mode = "v" })
weakk = setmetatable ({ [strong] = 1, [{}] = 2 }, { __mode = "k" })

-- A pending __gc: a live object with a finalizer.
gc_log = {}
guarded = setmetatable ({ name = "guarded" },
                        { __gc = function (o) io.write ("gc ", o.name, "\n") end })

-- Metatables, strings, numbers, integers, nested tables.
vec = setmetatable ({ x = 1, y = 2 }, { __add = function (a, b)
  return { x = a.x + b.x, y = a.y + b.y } end, __index = { kind = "vec" } })
long = string.rep ("long string ", 100)
nums = { 1, 2.5, math.maxinteger, -0.0, 1/0, "1e3" }
loaded_string = require "string" == string

function check ()
  print ("closure", inc (), get ())
  print ("coroutine yield", first_yield, peek ())
  print ("coroutine resume", coroutine.resume (co, 5))
  print ("coroutine after", peek (), coroutine.status (co))
  print ("coroutine end", coroutine.resume (co))
  print ("wrap", gen (), gen ())
  print ("keys", keyed[kt], keyed[kf], keyed[co], keyed[print], keyed[1.5], keyed[true])
  local n = 0
  for k, v in pairs (keyed) do if type (k) == "table" and k ~= kt then n = n + v end end
  print ("many keys", n)
  keyed[kt] = nil; keyed[{}] = "new"
  print ("keys after change", keyed[kt], keyed[kf])
  collectgarbage ()
  local c = 0
  for _ in pairs (weakv) do c = c + 1 end
  local d = 0
  for _ in pairs (weakk) do d = d + 1 end
  print ("weak", c, d, weakv[1] == strong)
  print ("metatable", (vec + vec).x, vec.kind)
  print ("strings", #long, long:sub (1, 11), ("x"):rep (3))
  print ("numbers", table.concat ({ nums[1], nums[2], nums[3], tostring (nums[4]), tostring (nums[5]), nums[6] }, " "))
  print ("require", loaded_string, package.loaded.string == string)
  print ("io", io.type (io.stdout), io.stdout == io.output ())
  guarded = nil
  collectgarbage ()
end

if os.getenv ("LUA_STATE_DIGEST") then
  print (dofile (os.getenv ("LUA_STATE_DIGEST")) ())
elseif not os.getenv ("LUA_STATE_DUMP") then
  check ()
end
