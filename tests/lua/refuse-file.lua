-- An open file other than the standard streams: refused at the dump.
held = io.open (os.getenv ("LUA_TEST_FILE"), "w")
