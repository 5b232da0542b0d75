-- A pending string.gmatch iterator (C pointers into its strings).
words = string.gmatch ("one two three", "%a+")
first = words ()
