;; SPDX-License-Identifier: MIT
;;; tests/host/mutate.lisp --- mutate objects that came from a dump, then
;; collect, and check that what they now point at survives.
;;
;; Run from a dumped dlisp: the prelude's data (dlisp-torture, the
;; world, global-map) lives in the image (pdump) or the saved data
;; (unexec).  New objects are hung off those, garbage is made, several
;; collections run, and every new object must still be intact; the eq
;; table from the dump must still answer by identity (rehashed after a
;; pdump load).

(defvar mutate-failures 0)

(defmacro expect (name form expected)
  `(let ((actual (condition-case err ,form (error (list 'error err)))))
     (if (equal actual ,expected)
         (princ (format "PASS %s\n" ,name))
       (setq mutate-failures (1+ mutate-failures))
       (princ (format "FAIL %s: got %S, expected %S\n" ,name actual ,expected)))))

(defun make-garbage (n)
  (let ((junk nil))
    (dotimes (i n)
      (setq junk (cons (make-string 20 ?g) (if (> (length junk) 50) nil junk))))
    (length junk)))

(let* ((shared (plist-get dlisp-torture 'shared))
       (table (plist-get dlisp-torture 'eq-table))
       (self (plist-get dlisp-torture 'self-vector))
       (fresh-list (list "fresh" 1.25 (make-vector 3 'x)))
       (fresh-key (list 'fresh 'key)))
  ;; Image objects now point at fresh objects.
  (setcar (cdr shared) fresh-list)
  (aset self 2 (concat "fresh-" "string"))
  (puthash fresh-key 'fresh-value table)
  (define-key global-map "C-c m" (list 'fresh-binding (make-string 5 ?k)))
  (put 'dlisp-torture 'fresh-property (vector fresh-list 7))
  (dotimes (round 3)
    (make-garbage 20000)
    (garbage-collect))
  (expect "fresh list through an image cons" (cadr shared) '("fresh" 1.25 [x x x]))
  (expect "fresh string in an image vector" (aref self 2) "fresh-string")
  (expect "fresh key in an image eq table" (gethash fresh-key table) 'fresh-value)
  (expect "image keys still found by identity" (gethash shared table) 'shared)
  (expect "image self-reference" (eq (aref self 0) self) t)
  (expect "fresh keymap entry" (lookup-key global-map "C-c m") '(fresh-binding "kkkkk"))
  (expect "fresh property" (aref (get 'dlisp-torture 'fresh-property) 1) 7)
  (expect "circular list still circular"
          (let ((c (plist-get dlisp-torture 'circular))) (eq c (nthcdr 3 c))) t)
  (expect "big string intact" (length (plist-get dlisp-torture 'big-string)) 1200000))

(if (> mutate-failures 0)
    (kill-emacs 1)
  (princ "mutate: all checks passed\n"))
