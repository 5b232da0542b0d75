-- A C library loaded with dlopen (package.loadlib with "*" only loads
-- it): refused at the dump, naming the library.
assert (package.loadlib ("libm.so.6", "*"))
