;; SPDX-License-Identifier: MIT
;;; loadup.lisp --- build the default dlisp world.
;;
;; Run once by a cold start (every start in a `none' build) or by the
;; dumping run (dlisp-bare --temacs=...).  Loads the prelude in order,
;; then the synthetic world whose size `dlisp-loadup-scale' sets.

(load "subr")
(load "seq")
(load "keymap")
(load "chars")
(load "world")

(defconst dlisp-loadup-summary
  (list 'symbols (nth 3 (dlisp-heap-stats))
        'scale dlisp-loadup-scale)
  "What the loadup built.")
