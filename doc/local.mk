# SPDX-License-Identifier: MIT
# doc/local.mk: documentation.
