-- tests/lua/more.lua: more kinds of state (see state.lua for how it
-- runs): a debug hook, a to-be-closed variable pending in a suspended
-- coroutine, a userdata (io.stdout) as a table key, a stored
-- utf8.codes iterator, a function loaded from string.dump's binary
-- chunk, varargs kept in a suspended coroutine, an integer-keyed
-- sparse table.  (Not the collector's mode: lua.c sets generational
-- mode at every start, a restored one too.)
hook_calls = 0
local function hook () hook_calls = hook_calls + 1 end
debug.sethook (hook, "", 1000000)

closed = {}
tbc = coroutine.create (function ()
  local x <close> = setmetatable ({}, { __close = function () closed[#closed + 1] = "closed" end })
  coroutine.yield ("holding")
  return "released"
end)
coroutine.resume (tbc)

by_udata = { [io.stdout] = "stdout key" }
iter = utf8.codes ("héllo")
dumped = load (string.dump (function (a) return a * 7 end), "dumped", "b")
va = coroutine.wrap (function (...) local t = table.pack (...) coroutine.yield () return t.n, select ("#", ...), ... end)
va (1, nil, 3)
sparse = { [1] = "a", [1000] = "b", [-5] = "c", [2^53] = "d" }

function check ()
  print ("hook", debug.gethook () == hook)
  print ("tbc", coroutine.resume (tbc))
  print ("tbc closed", closed[1])
  print ("udata key", by_udata[io.stdout])
  local f, s, i = iter
  print ("utf8 iterator", select (2, iter ("héllo", 0)))
  print ("string.dump", dumped (6))
  print ("varargs", va ())
  print ("sparse", sparse[1], sparse[1000], sparse[-5], sparse[2^53])
end

if os.getenv ("LUA_STATE_DIGEST") then
  print (dofile (os.getenv ("LUA_STATE_DIGEST")) ())
elseif not os.getenv ("LUA_STATE_DUMP") then
  check ()
end
