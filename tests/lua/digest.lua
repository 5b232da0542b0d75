-- tests/lua/digest.lua: returns a function that prints nothing and
-- returns a digest of the Lua state reachable from the registry (the
-- heap comparison of the Lua port, as dlisp's --heap-digest is the
-- reference host's).  It leaves no global behind, so a restored state
-- can be digested as it is:
--   dumper-lua --image=IMG -e 'print (dofile ("digest.lua") ())'
-- What is per start is left out: the `arg' table, the port's own
-- registry entries (lua_port.*), LUA_NOENV, package.path and cpath
-- (from the environment).  Tables are walked in a canonical order
-- (their entries sorted by a shallow description of key and value) and
-- numbered in visit order, so sharing and cycles count; functions are
-- described by their source and line, C functions by their kind only,
-- userdata by their metatable, threads by their status.
return function ()
  local seen, out, n = {}, {}, 0
  local skip_key = { arg = true, LUA_NOENV = true, path = true, cpath = true }
  local function skipped (k)
    return type (k) == "string" and (skip_key[k] or k:match ("^lua_port%.")) and true
  end
  local function shallow (v)
    local t = type (v)
    if t == "string" then return "s" .. v
    elseif t == "number" then return (math.type (v) or "n") .. string.format ("%.17g", v)
    elseif t == "boolean" or t == "nil" then return tostring (v)
    elseif t == "function" then
      local info = debug.getinfo (v, "S")
      return "f" .. info.what .. (info.what == "C" and "" or info.source .. ":" .. info.linedefined)
    elseif t == "table" then
      local c = 0
      for k in next, v do if not skipped (k) then c = c + 1 end end
      return "t" .. c
    else return t end
  end
  local visit
  visit = function (v)
    local t = type (v)
    if t ~= "table" and t ~= "function" and t ~= "userdata" and t ~= "thread" then
      out[#out + 1] = shallow (v)
      return
    end
    if seen[v] then out[#out + 1] = "@" .. seen[v]; return end
    n = n + 1
    seen[v] = n
    out[#out + 1] = "#" .. shallow (v)
    if t == "table" then
      local entries = {}
      for k, x in next, v do
        if not skipped (k) then
          entries[#entries + 1] = { shallow (k) .. "=" .. shallow (x), k, x }
        end
      end
      table.sort (entries, function (a, b) return a[1] < b[1] end)
      for _, e in ipairs (entries) do visit (e[2]); visit (e[3]) end
      local mt = getmetatable (v)
      if mt ~= nil and type (mt) == "table" then out[#out + 1] = "mt"; visit (mt) end
    elseif t == "function" then
      local info = debug.getinfo (v, "u")
      for i = 1, info.nups do visit (select (2, debug.getupvalue (v, i))) end
    elseif t == "userdata" then
      visit (debug.getmetatable (v))
    elseif t == "thread" then
      out[#out + 1] = coroutine.status (v)
    end
  end
  visit (debug.getregistry ())
  local s = table.concat (out, "\0")
  local h = 2166136261
  for i = 1, #s do h = ((h ~ s:byte (i)) * 16777619) & 0xffffffff end
  return string.format ("%08x %d objects", h, n)
end
