# tools/inspect/local.mk: dumper-inspect (issue 8) and the image fuzz targets.
