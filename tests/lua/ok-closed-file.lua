-- A file opened and closed during the init is fine: its handle holds
-- no FILE any more.
local f = assert (io.open (os.getenv ("LUA_TEST_FILE"), "w"))
f:write ("x")
f:close ()
closed = f
